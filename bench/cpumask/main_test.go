package cpumask

import (
	"testing"

	"github.com/contend/contend/bench/benchtest"
)

func TestMain(m *testing.M) { benchtest.Main(m) }
