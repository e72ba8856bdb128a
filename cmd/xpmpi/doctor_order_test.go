package main

import "testing"

// TestGPUFindingOrder: with GPUs shared on several nodes, the finding names
// the first node and GPU by name, every time (a map's order would pick one
// at random).
func TestGPUFindingOrder(t *testing.T) {
	var doc jobInfo
	for _, r := range []struct{ host, gpu string }{
		{"node-c", "GPU 1"}, {"node-c", "GPU 1"}, {"node-b", "GPU 0"}, {"node-b", "GPU 0"}, {"node-b", "GPU 0"},
		{"node-a", "GPU 2"}, {"node-a", "GPU 1"}, {"node-a", "GPU 1"}, {"node-a", "GPU 0"},
	} {
		doc.Ranks = append(doc.Ranks, rankInfo{Host: r.host, GPU: r.gpu})
	}
	for i := 0; i < 50; i++ {
		f := gpuFinding(doc, 4)
		if f.Status != statusProblem || f.Detail != "2 ranks on node-a share GPU 1" {
			t.Fatalf("try %d: %s %q, want a problem: 2 ranks on node-a share GPU 1", i, f.Status, f.Detail)
		}
	}
}
