package results

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// OneLine flattens benchproc's syntax errors (in -filter, -row, -col,
// -ignore: what report and figure both parse), which point at the bad
// character with a caret under a copy of the query:
//
//	syntax error: unknown order "bogus"
//		/threads@bogus
//		         ^
//
// into one line that gives the position as a number, so that a bad flag is
// one line on stderr. Any other error comes back as it was.
func OneLine(err error) error {
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[2], "^") {
		return err
	}
	col := utf8.RuneCountInString(strings.TrimPrefix(lines[2], "\t"))
	return &flatError{fmt.Sprintf("%s at character %d", lines[0], col), err}
}

type flatError struct {
	msg string
	err error
}

func (e *flatError) Error() string { return e.msg }
func (e *flatError) Unwrap() error { return e.err }
