package results

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// A File writes a sweep's results so that none are ever lost.
//
// Results go to PATH.partial, one record at a time, each written whole and
// fsynced before the next run starts, so after Ctrl-C, a crash or a power cut
// the partial file is valid benchmark format that benchstat reads as it is.
// Only a sweep that completes renames it over PATH, so an existing results
// file is never truncated or half-written by a failed run. A resumed sweep
// continues the partial file (or starts from a copy of PATH).
//
// A run that failed is recorded too, as a comment line the benchmark format
// (and so benchstat and every reader here) skips; see Fail.
type File struct {
	path    string
	partial string
	f       *os.File
	w       *benchfmt.Writer
	buf     bytes.Buffer
	n       int            // results written or kept
	done    map[string]int // results already in the file, by full name
	failed  map[string]Failure
	samples map[string][]float64 // each result's sec/op, by full name
	rounds  map[string]Convergence
	shared  map[string]string // by a configuration's name, whose run its shared line says it has
}

// A Failure is a run that failed: the configuration's full name, the round
// of the sweep it was (1-based), and why. In a results file it is the line
//
//	# failed: NAME round=R: MESSAGE
//
// which benchfmt.Reader ignores (a line that is neither a result, a
// configuration line nor a Unit line), as benchstat does.
type Failure struct {
	Name  string `json:"name"`
	Round int    `json:"round"`
	Msg   string `json:"error"`
}

const failurePrefix = "# failed: "

// line is f as a results file line, newline included; a message of several
// lines (errors.Join) is folded into one.
func (f Failure) line() string {
	msg := strings.NewReplacer("\r\n", "; ", "\n", "; ", "\r", "; ").Replace(f.Msg)
	return fmt.Sprintf("%s%s round=%d: %s\n", failurePrefix, f.Name, f.Round, msg)
}

// parseFailure reads a failure line (without its newline).
func parseFailure(line string) (Failure, bool) {
	rest, ok := strings.CutPrefix(line, failurePrefix)
	if !ok {
		return Failure{}, false
	}
	name, rest, ok := strings.Cut(rest, " round=")
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return Failure{}, false
	}
	r, msg, ok := strings.Cut(rest, ": ")
	round, err := strconv.Atoi(r)
	if !ok || err != nil || round < 1 {
		return Failure{}, false
	}
	return Failure{Name: name, Round: round, Msg: msg}, true
}

// A Convergence is how far a configuration's rounds went in a sweep with
// adaptive rounds: how many it ran, the half-width of the 95% confidence
// interval of its ns/op median it reached, as a share of the median (as
// contend table prints it: the larger side), the target it stopped at, and
// whether it reached it (else it ran the most rounds without). In a
// results file it is the comment line
//
//	# rounds: NAME rounds=R ci=1.73% target=2% converged
//
// ("not-converged" where it did not, "ci=inf" below 6 rounds), written when
// the configuration stops, which readers other than Set's skip as they
// skip failure lines.
type Convergence struct {
	Name      string  `json:"name"`
	Rounds    int     `json:"rounds"`
	CI        float64 `json:"ci"` // +Inf where no 95% interval exists
	Target    float64 `json:"target"`
	Converged bool    `json:"converged"`
}

const roundsPrefix = "# rounds: "

func (c Convergence) line() string {
	state := "converged"
	if !c.Converged {
		state = "not-converged"
	}
	return fmt.Sprintf("%s%s rounds=%d ci=%s target=%s %s\n", roundsPrefix, c.Name, c.Rounds, pct(c.CI), pct(c.Target), state)
}

// pct writes a share as a percentage, "inf" where it is infinite.
func pct(x float64) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return "inf"
	}
	return strconv.FormatFloat(100*x, 'f', 2, 64) + "%" // 1.73%, 234.56%: as far as a ± is worth reading
}

// parsePct reads what pct writes.
func parsePct(s string) (float64, bool) {
	if s == "inf" {
		return math.Inf(1), true
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || !strings.HasSuffix(s, "%") || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v / 100, true
}

// parseConvergence reads a rounds line (without its newline).
func parseConvergence(line string) (Convergence, bool) {
	rest, ok := strings.CutPrefix(line, roundsPrefix)
	if !ok {
		return Convergence{}, false
	}
	f := strings.Fields(rest)
	if len(f) != 5 || !strings.HasPrefix(f[1], "rounds=") || !strings.HasPrefix(f[2], "ci=") || !strings.HasPrefix(f[3], "target=") {
		return Convergence{}, false
	}
	c := Convergence{Name: f[0], Converged: f[4] == "converged"}
	var err error
	if c.Rounds, err = strconv.Atoi(f[1][len("rounds="):]); err != nil || c.Rounds < 1 {
		return Convergence{}, false
	}
	var okCI, okT bool
	c.CI, okCI = parsePct(f[2][len("ci="):])
	c.Target, okT = parsePct(f[3][len("target="):])
	if !okCI || !okT || f[4] != "converged" && f[4] != "not-converged" {
		return Convergence{}, false
	}
	return c, true
}

// A Shared line says that configurations had the same run as another: the
// same scenario and variant with every worker on the same CPU under other
// placements' names (one worker; every CPU in the same order). The file
// holds the run's result once under each name, so that benchstat and every
// table put it in each placement's column, and this comment line, written
// before the first of them,
//
//	# shared: NAME also=NAME2,NAME3
//
// says they are one measurement, not two that agree.
type Shared struct {
	Name string
	Also []string
}

const sharedPrefix = "# shared: "

func (s Shared) line() string {
	return fmt.Sprintf("%s%s also=%s\n", sharedPrefix, s.Name, strings.Join(s.Also, ","))
}

// parseShared reads a shared line (without its newline).
func parseShared(line string) (Shared, bool) {
	rest, ok := strings.CutPrefix(line, sharedPrefix)
	if !ok {
		return Shared{}, false
	}
	name, also, ok := strings.Cut(rest, " also=")
	if !ok || name == "" || also == "" || strings.ContainsAny(name+also, " \t") {
		return Shared{}, false
	}
	return Shared{Name: name, Also: strings.Split(also, ",")}, true
}

// Open prepares path for a sweep. With resume, it keeps what an
// earlier sweep left in path.partial or, failing that, in path.
func Open(path string, resume bool) (_ *File, err error) {
	rf := &File{path: path, partial: path + ".partial", done: map[string]int{}, failed: map[string]Failure{},
		samples: map[string][]float64{}, rounds: map[string]Convergence{}, shared: map[string]string{}}
	// A directory that does not exist is refused, not made: a mistyped
	// -o would otherwise leave results where nobody looks for them.
	if dir := filepath.Dir(path); dir != "" {
		if fi, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("results file %s: directory %s does not exist", path, dir)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("results file %s: %s is not a directory", path, dir)
		}
	}
	var keep []byte
	if resume {
		for _, p := range []string{rf.partial, path} {
			b, err := os.ReadFile(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if keep, err = rf.load(p, b); err != nil {
				return nil, err
			}
			break
		}
	} else if _, err := os.Stat(rf.partial); err == nil {
		return nil, fmt.Errorf("%s exists: an interrupted sweep left it; pass -resume to continue it, or remove it", rf.partial)
	}
	// Write the kept records to a fresh file and rename it into place, so
	// that a torn last line of a crashed sweep is dropped atomically too.
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("results file %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes the file private; results are for sharing.
	if err := tmp.Chmod(0o644); err != nil {
		return nil, fmt.Errorf("results file %s: %w", path, err)
	}
	if len(keep) > 0 {
		keep = append(keep, '\n') // a fresh configuration block follows
	}
	// The temporary file is removed on failure: name the results file.
	if _, err := tmp.Write(keep); err != nil {
		return nil, fmt.Errorf("writing results file %s: %w", path, pathCause(err))
	}
	if err := tmp.Sync(); err != nil {
		return nil, fmt.Errorf("writing results file %s: %w", path, pathCause(err))
	}
	if err := os.Rename(tmp.Name(), rf.partial); err != nil {
		return nil, fmt.Errorf("creating %s: %w", rf.partial, err)
	}
	rf.f = tmp
	rf.w = benchfmt.NewWriter(&rf.buf)
	return rf, nil
}

// load counts by name the results an earlier sweep left in b and returns
// the part of b to keep: its whole lines. A crash can leave the last line
// torn, and a torn line may still parse (a record cut after its ns/op has
// lost its other units), so only lines that end in a newline count; any
// of those that does not parse means the file is not ours to extend. A
// configuration whose last line in b is a failure line is failed (Failed);
// results after it (a retry) clear it.
func (rf *File) load(name string, b []byte) ([]byte, error) {
	b = b[:bytes.LastIndexByte(b, '\n')+1]
	lastResult := map[string]int{} // by name, its last result's line
	r := benchfmt.NewReader(bytes.NewReader(b), name)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, fmt.Errorf("cannot resume: %v", rec)
		case *benchfmt.Result:
			rf.done[rec.Name.String()]++
			rf.n++
			_, lastResult[rec.Name.String()] = rec.Pos()
			if v, ok := rec.Value("sec/op"); ok {
				rf.samples[rec.Name.String()] = append(rf.samples[rec.Name.String()], v)
			}
		}
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("cannot resume from %s: %w", name, err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if f, ok := parseFailure(line); ok && i+1 > lastResult[f.Name] {
			rf.failed[f.Name] = f
		}
		if c, ok := parseConvergence(line); ok {
			rf.rounds[c.Name] = c
		}
		if s, ok := parseShared(line); ok {
			rf.note(s)
		}
	}
	return b, nil
}

// Done reports how many results named name the file already holds.
func (rf *File) Done(name string) int { return rf.done[name] }

// Failed returns the failure recorded for name, unless results of name
// were written after it.
func (rf *File) Failed(name string) (Failure, bool) {
	f, ok := rf.failed[name]
	return f, ok
}

// Fail records a failed run as a comment line, durable before it returns
// as Write's records are.
func (rf *File) Fail(f Failure) error {
	if err := rf.comment(f.line()); err != nil {
		return err
	}
	rf.failed[f.Name] = f
	return nil
}

// Samples returns the sec/op values of the results named name the file
// holds, in the order written.
func (rf *File) Samples(name string) []float64 { return rf.samples[name] }

// Converged returns the rounds line recorded for name, if any.
func (rf *File) Converged(name string) (Convergence, bool) {
	c, ok := rf.rounds[name]
	return c, ok
}

// Converge records how far a configuration's rounds went, as a comment
// line, durable before it returns.
func (rf *File) Converge(c Convergence) error {
	if err := rf.comment(c.line()); err != nil {
		return err
	}
	rf.rounds[c.Name] = c
	return nil
}

// Share records that configurations had another's run, as a comment line
// (see Shared), durable before it returns.
func (rf *File) Share(s Shared) error {
	if err := rf.comment(s.line()); err != nil {
		return err
	}
	rf.note(s)
	return nil
}

// SharedRun returns the name of the configuration whose run the file's
// shared lines say name has, if any: a sweep that resumes the file under
// a plan sharing runs writes the line only where it is missing.
func (rf *File) SharedRun(name string) (string, bool) {
	s, ok := rf.shared[name]
	return s, ok
}

func (rf *File) note(s Shared) {
	for _, a := range s.Also {
		rf.shared[a] = s.Name
	}
}

// comment appends one comment line and syncs it.
func (rf *File) comment(line string) error { return rf.append([]byte(line)) }

// append writes b at the end of the partial file and makes it durable.
func (rf *File) append(b []byte) error {
	if _, err := rf.f.Write(b); err != nil {
		return rf.writeError(err)
	}
	if err := rf.f.Sync(); err != nil {
		return rf.writeError(err)
	}
	return nil
}

// writeError names what a failed write (a full disk, a quota) concerns: the
// results file and where the results so far are. The *os.File was created
// under a temporary name and renamed, so the error it returns names a file
// that no longer exists; only its cause is kept.
func (rf *File) writeError(err error) error {
	return fmt.Errorf("writing results file %s (the results so far are in %s): %w", rf.path, rf.partial, pathCause(err))
}

// Write appends records and makes them durable before returning.
func (rf *File) Write(recs ...benchfmt.Record) error {
	rf.buf.Reset()
	for _, rec := range recs {
		if err := rf.w.Write(rec); err != nil {
			return err
		}
	}
	if err := rf.append(rf.buf.Bytes()); err != nil {
		return err
	}
	for _, rec := range recs {
		if res, ok := rec.(*benchfmt.Result); ok {
			rf.done[res.Name.String()]++
			rf.n++
			delete(rf.failed, res.Name.String())
			if v, ok := secPerOp(res); ok {
				rf.samples[res.Name.String()] = append(rf.samples[res.Name.String()], v)
			}
		}
	}
	return nil
}

// secPerOp is a result's time per operation in seconds, whether it is
// written as ns/op (as a sweep builds it) or read back as sec/op.
func secPerOp(r *benchfmt.Result) (float64, bool) {
	for _, v := range r.Values {
		switch v.Unit {
		case "sec/op":
			return v.Value, true
		case "ns/op":
			return v.Value / 1e9, true
		}
	}
	return 0, false
}

// Commit renames the complete partial file over the final path.
func (rf *File) Commit() error {
	if err := rf.f.Close(); err != nil {
		return rf.writeError(err)
	}
	if err := os.Rename(rf.partial, rf.path); err != nil {
		return fmt.Errorf("saving results: %w", err)
	}
	return nil
}

// Abandon closes the partial file and leaves it for -resume.
func (rf *File) Abandon() error { return rf.f.Close() }

// Partial returns the path results go to until Commit.
func (rf *File) Partial() string { return rf.partial }

// Len returns how many results the file holds: kept from an earlier sweep,
// and written since.
func (rf *File) Len() int { return rf.n }
