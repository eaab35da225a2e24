package batch

import (
	"context"
	"fmt"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// This file holds the host's side of a method's declarations: the data it
// is sent, the tables it is given and the results it may return. Its
// output kind and linked tables are checked by suppress, where it uses
// them.

// protect runs job with the method serving job.Method, sending it only the
// data its capabilities ask for (pluginclient.Fit), and checks the result
// against the problem and the method's output kind (pluginsdk.CheckResult):
// a plugin built with the SDK checked it already, one that is not (another
// language, another SDK) could return, say, a primary made safe.
func (e *engine) protect(ctx context.Context, job pluginclient.Job) (*pluginsdk.Result, error) {
	ref, ok := e.cfg.Protector.Method(job.Method)
	if ok {
		job.Problem = pluginclient.Fit(ref.Info.Capabilities, job.Problem)
	}
	res, err := e.withProgressLog(ctx, job, func(job pluginclient.Job) (*pluginsdk.Result, error) {
		return e.cfg.Protector.Protect(ctx, job)
	})
	if err != nil || !ok {
		return res, err
	}
	if err := pluginsdk.CheckResult(job.Problem, ref.Info.Capabilities.Output, res); err != nil {
		return nil, fmt.Errorf("method %s returned an invalid result: %w", job.Method, err)
	}
	return res, nil
}

// checkDimensions refuses a table with more dimensions than the method
// protects (Capabilities.MaxDimensions); first is the number of specs[0]
// in the batch file.
func checkDimensions(info pluginsdk.MethodInfo, specs []*tableSpec, first int) error {
	limit := info.Capabilities.MaxDimensions
	if limit <= 0 {
		return nil
	}
	for i, t := range specs {
		if n := len(t.cmd.Explanatory); n > limit {
			return fmt.Errorf("method %s protects tables of at most %d dimensions; table %d (%s) has %d",
				info.Code, limit, first+i, describe(t), n)
		}
	}
	return nil
}
