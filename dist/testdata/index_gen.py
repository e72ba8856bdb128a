# Writes index_numpy.json, the NumPy values of index_test.go: run it in dist/testdata with python3 (NumPy).
import numpy as np, json
def X(shape):
    n = int(np.prod(shape))
    return (np.array([(i*7+3) % 11 for i in range(n)], dtype=np.float64) - 4).reshape(shape)
cases = []
def add(name, op, shape, params, res):
    res = np.asarray(res)
    cases.append(dict(name=name, op=op, shape=list(shape), params=params, want=[float(v) for v in res.ravel()], wshape=list(res.shape)))
for sh, sh_, ax in [((7,),3,0),((7,),-9,0),((5,3),4,1),((5,3),-1,0),((2,3,4),5,-1),((1,2),3,0),((0,3),2,1)]:
    add(f"Roll{sh}s{sh_}a{ax}", "Roll", sh, dict(shift=sh_, axis=ax), np.roll(X(sh), sh_, ax))
for sh, s in [((5,3),7),((2,3,4),-30),((7,),100),((1,2),1),((0,3),2)]:
    add(f"RollFlat{sh}s{s}", "RollFlat", sh, dict(shift=s), np.roll(X(sh), s))
add("RollAxes(5,3)", "RollAxes", (5,3), dict(shifts=[1,2], axes=[0,1]), np.roll(X((5,3)),(1,2),(0,1)))
add("RollAxes(5,3)same", "RollAxes", (5,3), dict(shifts=[1,1], axes=[1,1]), np.roll(X((5,3)),(1,1),(1,1)))
add("RollAxes(2,3,4)one", "RollAxes", (2,3,4), dict(shifts=[-2], axes=[0,2]), np.roll(X((2,3,4)),-2,(0,2)))
for sh, axes in [((7,),[]),((5,3),[0]),((5,3),[1]),((5,3),[]),((2,3,4),[0,2]),((2,3,4),[-1]),((1,2),[]),((0,3),[1])]:
    add(f"Flip{sh}{axes}", "Flip", sh, dict(axes=axes), np.flip(X(sh), axis=tuple(axes) if axes else None))
for sh, reps in [((7,),[2]),((5,3),[2]),((5,3),[2,1,2]),((2,3,4),[1,2,1]),((3,),[2,2]),((1,2),[3,1]),((5,3),[0,1]),((0,3),[2,2])]:
    add(f"Tile{sh}{reps}", "Tile", sh, dict(reps=reps), np.tile(X(sh), reps))
for sh, rep, ax in [((7,),[2],0),((5,3),[1,0,2],1),((5,3),[3],0),((2,3,4),[2,1,3],1),((1,2),[2,3],1),((5,3),[0,1,0,2,1],0),((0,3),[2],0)]:
    add(f"Repeat{sh}{rep}a{ax}", "Repeat", sh, dict(repeats=rep, axis=ax), np.repeat(X(sh), rep, ax))
for sh, rep in [((5,3),[2]),((2,3),[1,2,0,1,3,1]),((7,),[1]),((0,3),[3])]:
    add(f"RepeatFlat{sh}{rep}", "RepeatFlat", sh, dict(repeats=rep), np.repeat(X(sh), rep if len(rep)>1 else rep[0]))
for sh, w in [((7,),[[2,3]]),((5,3),[[1,2],[3,0]]),((2,3,4),[[1,1]]),((3,),[[7,8]]),((1,2),[[2,1],[0,3]]),((0,3),[[0,0],[1,1]])]:
    for mode in ["constant","edge","reflect","symmetric","wrap"]:
        if sh == (0,3) and mode != "constant" and False: continue
        add(f"Pad{sh}{w}{mode}", "Pad", sh, dict(width=w, mode=mode), np.pad(X(sh), [tuple(p) for p in w] if len(w)>1 else tuple(w[0]), mode=mode))
add("PadConstant(5,3)", "PadConstant", (5,3), dict(width=[[1,1],[2,0]], value=9), np.pad(X((5,3)), ((1,1),(2,0)), constant_values=9))
for sh, n, ax in [((7,),1,0),((7,),2,0),((7,),8,0),((5,3),1,0),((5,3),2,1),((2,3,4),1,1),((2,3,4),3,-1),((1,2),1,1),((1,2),1,0),((0,3),1,1)]:
    add(f"Diff{sh}n{n}a{ax}", "Diff", sh, dict(n=n, axis=ax), np.diff(X(sh), n, ax))
add("Diff(5,3)ends", "Diff", (5,3), dict(n=1, axis=1, prepend=1, append=2), np.diff(X((5,3)), 1, 1, prepend=1, append=2))
add("Diff(5,3)ends n3", "Diff", (5,3), dict(n=3, axis=0, prepend=-1), np.diff(X((5,3)), 3, 0, prepend=-1))
pre = (np.arange(6.).reshape(2,3)*3 - 5)
add("Diff(5,3)prependArray", "Diff", (5,3), dict(n=2, axis=0, prependArray=[2,3]), np.diff(X((5,3)), 2, 0, prepend=pre))
app = (np.arange(10.).reshape(5,2)*3 - 5)
add("Diff(5,3)appendArray", "Diff", (5,3), dict(n=1, axis=1, appendArray=[5,2]), np.diff(X((5,3)), 1, 1, append=app))
def take(sh, ind, ax):
    ind = np.array(ind)
    add(f"Take{sh}{ind.tolist()}a{ax}", "Take", sh, dict(indices=[int(v) for v in ind.ravel()], ishape=list(ind.shape), axis=ax), np.take(X(sh), ind, ax))
take((7,),[6,-1,0,3,3],0)
take((5,3),[4,0,-2,4],0)
take((5,3),[[2,0],[1,1],[0,2]],1)
take((2,3,4),[3,0,-4],2)
take((2,3,4),[[1],[0]],0)
take((2,3,4),[2,2,0,1,-3],1)
take((1,2),[1,0,1],1)
take((5,3),np.zeros(0,dtype=int),0)
for sh, ind in [((7,),[6,-1,0,3,3]),((2,3,4),[23,0,-1,12,5,5]),((5,3),[[14,0],[7,-15],[3,3]]),((1,2),[1])]:
    ind = np.array(ind)
    add(f"TakeFlat{sh}{ind.tolist()}", "TakeFlat", sh, dict(indices=[int(v) for v in ind.ravel()], ishape=list(ind.shape)), np.take(X(sh), ind))
for sh in [(5,3),(7,),(2,3,4),(1,2)]:
    x = X(sh); m = x > 0
    y = x.copy(); y[m] = 99; add(f"FillWhere{sh}", "FillWhere", sh, dict(value=99), y)
    y = x.copy(); y[m] = np.arange(m.sum())*10+1; add(f"AssignWhere{sh}", "AssignWhere", sh, dict(values=(np.arange(m.sum())*10+1).tolist()), y)
    y = x.copy(); y[m] = 5; add(f"AssignWhere1{sh}", "AssignWhere", sh, dict(values=[5]), y)
    y = x.copy(); np.place(y, m, [100,200]); add(f"Place{sh}", "Place", sh, dict(values=[100,200]), y)
json.dump(cases, open("index_numpy.json","w"), indent=0)
print(len(cases))
