package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
)

// logLevelFromEnv returns the level XPMPI_LOG asks for, and whether it is
// set.
func logLevelFromEnv() (slog.Level, bool, error) {
	v := strings.TrimSpace(os.Getenv("XPMPI_LOG"))
	switch strings.ToLower(v) {
	case "":
		return slog.LevelInfo, false, nil
	case "debug":
		return slog.LevelDebug, true, nil
	case "info":
		return slog.LevelInfo, true, nil
	case "warn":
		return slog.LevelWarn, true, nil
	}
	return slog.LevelInfo, false, fmt.Errorf("XPMPI_LOG=%q: want debug, info or warn (unset: info)", v)
}

// logLevel returns the level of the command's messages: --verbose (debug)
// or --quiet (warnings only), else XPMPI_LOG, else info. A bad XPMPI_LOG
// gives info and the error.
func logLevel(cmd *cobra.Command) (slog.Level, error) {
	verbose, _ := cmd.Flags().GetBool("verbose")
	quiet, _ := cmd.Flags().GetBool("quiet")
	switch {
	case verbose && quiet:
		return slog.LevelInfo, fmt.Errorf("--verbose and --quiet: choose one")
	case verbose:
		return slog.LevelDebug, nil
	case quiet:
		return slog.LevelWarn, nil
	}
	l, _, err := logLevelFromEnv()
	return l, err
}

// rankHandler writes one line per record, prefixed with the rank:
//
//	xpmpi: rank 0: info: iteration 20/200 (10%) 0.1s
//	xpmpi: rank 1: debug: backend selected name=cpu
type rankHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	rank  int
	level slog.Leveler
	attrs []slog.Attr
}

// newLogger returns a logger of rank's messages at level and above to w.
func newLogger(w io.Writer, rank int, level slog.Leveler) *slog.Logger {
	return slog.New(&rankHandler{mu: new(sync.Mutex), w: w, rank: rank, level: level})
}

func (h *rankHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

func (h *rankHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "xpmpi: rank %d: %s: %s", h.rank, strings.ToLower(r.Level.String()), r.Message)
	write := func(a slog.Attr) bool {
		if a.Equal(slog.Attr{}) {
			return true
		}
		v := a.Value.Resolve().String()
		if v == "" || strings.ContainsAny(v, " \t\n\"=") {
			v = strconv.Quote(v)
		}
		fmt.Fprintf(&b, " %s=%s", a.Key, v)
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *rankHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &c
}

// WithGroup is not used by xpmpi; groups are flattened.
func (h *rankHandler) WithGroup(string) slog.Handler { return h }
