package figure

import (
	"slices"
	"strings"
	"testing"
)

func TestOutputs(t *testing.T) {
	for _, tc := range []struct {
		out, format, input string
		want               []Output
	}{
		{"", "", "runs/sweep.txt", []Output{{"runs/sweep.svg", "svg"}}},
		{"", "both", "sweep.txt", []Output{{"sweep.svg", "svg"}, {"sweep.png", "png"}}},
		{"x.png", "", "in.txt", []Output{{"x.png", "png"}}},
		{"x.SVG", "", "in.txt", []Output{{"x.SVG", "svg"}}},
		{"x", "png", "in.txt", []Output{{"x.png", "png"}}},
		{"x.svg", "both", "in.txt", []Output{{"x.svg", "svg"}, {"x.png", "png"}}},
		{"x.v2", "both", "in.txt", []Output{{"x.v2.svg", "svg"}, {"x.v2.png", "png"}}},
	} {
		got, err := Outputs(tc.out, tc.format, tc.input)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Outputs(%q, %q, %q) = %v, %v; want %v", tc.out, tc.format, tc.input, got, err, tc.want)
		}
	}
}

func TestOutputsErrors(t *testing.T) {
	for _, tc := range []struct {
		out, format, input, want string
	}{
		{"", "", "-", "-o: needed when reading standard input"},
		{"x.jpg", "", "in.txt", `-o x.jpg: unknown extension ".jpg" (want .svg or .png, or set -format)`},
		{"x.svg", "png", "in.txt", "-o x.svg: does not match -format png"},
		{"x", "jpg", "in.txt", `-format "jpg": want svg, png or both`},
	} {
		if _, err := Outputs(tc.out, tc.format, tc.input); err == nil || err.Error() != tc.want || strings.Contains(err.Error(), "\n") {
			t.Errorf("Outputs(%q, %q, %q) = %v, want %q", tc.out, tc.format, tc.input, err, tc.want)
		}
	}
}
