package main

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

func TestConformance(t *testing.T) {
	plugintest.Run(t, plugin(), &plugintest.Options{Params: map[string]map[string]string{"RND": {"base": "5"}}})
}

// TestBatchForms: RND(t, base, steps, max time, partitions, stop rule, unit
// cost) as τ-Argus reads it; the host runs τ-Argus's own checks of the line
// first (batch.roundingArgs), these are what reach the parameters.
func TestBatchForms(t *testing.T) {
	plugintest.CheckBatchForms(t, method{}.Info(), []plugintest.BatchCase{
		{Args: []string{"5"}, Want: map[string]string{"base": "5"}},
		{Args: []string{"10", "1", "3", "0", "1", "0"}, Want: map[string]string{"base": "10", "steps": "1", "max_time": "3",
			"partitions": "0", "stop_rule": "1", "unit_cost": "0"}},
		{Args: []string{"x"}, Msg: "Illegal value (x) for rounding base in RND"},
		{Args: []string{"5", "0", "0"}, Msg: "Illegal value for max time: 0"},
		{Args: []string{"5", "0", "10", "y"}, Msg: "Illegal value (y) for partitions in RND"},
		{Args: []string{"5", "0", "10", "0", "2", "1", "9"},
			Msg: "too many arguments for RND: it takes at most 7 (t, rounding base, steps, max time, partitions, stopping rule, unit cost)"},
	})
}
