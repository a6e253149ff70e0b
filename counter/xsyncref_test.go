package counter_test

import (
	"github.com/contend/contend/counter"
	"github.com/contend/contend/counter/xsyncref"
)

func init() { counter.NewReferenceStore = func() counter.Store { return xsyncref.New() } }
