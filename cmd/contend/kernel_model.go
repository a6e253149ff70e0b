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
	dur := fs.Duration("duration", 10*time.Second, "kernel time the model simulates per count (at 1 s a row moves with -seed by up to a third of its ratio)")
	seed := fs.Uint64("seed", 1, "seed of the models' random draws (idle patterns, wakeup coins): rows that move with it are within the model's own noise")
	moveRun := fs.Duration("move-run", 0, "a trial's: a moved task's run on its new cpu before it sleeps there (the migrate shape's sched_setaffinity()), in place of the count's pending spells' median (0: the count's)")
	onTime := fs.Bool("ticks-on-time", false, "a trial's: the model's busy ticks on time, in place of late by the count's busy-tick-lateness-us (the emulator's host)")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("kernel model: want one or more results files of contend kernel count -o")
	}
	if *dur <= 0 {
		return fmt.Errorf("kernel model: -duration %v: want a positive kernel time", *dur)
	}
	if *moveRun < 0 {
		return fmt.Errorf("kernel model: -move-run %v: want none or a positive time", *moveRun)
	}
	if *seed == 0 {
		return errors.New("kernel model: -seed 0: want a seed from 1")
	}
	if err := oracle.WriteModelTable(stdout, files, oracle.ModelOptions{Duration: *dur, Seed: *seed, MoveRun: *moveRun, TicksOnTime: *onTime}); err != nil {
		return fmt.Errorf("kernel model: %w", err)
	}
	return nil
}
