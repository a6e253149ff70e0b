package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/contend/contend/internal/oracle"
)

func init() { kernelSubs["model"] = kernelModelCmd }

// kernelModelCmd holds simulate loadavg, fed a count's measured rates,
// against the count: one row per quantity, kernel, model, model/kernel
// (oracle.WriteModelTable).
func kernelModelCmd(stdout, stderr io.Writer, args []string) error {
	fs := newFlags(stdout, "kernel", "model FILE... (results files of contend kernel count -o)")
	dur := fs.Duration("duration", time.Second, "kernel time the model simulates per count")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("kernel model: want one or more results files of contend kernel count -o")
	}
	if err := oracle.WriteModelTable(stdout, files, *dur); err != nil {
		return fmt.Errorf("kernel model: %w", err)
	}
	return nil
}
