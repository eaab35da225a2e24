package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// cmdAudit audits the suppression pattern of a JJ file (τ-Argus's <WRITETABLE>
// type 6, or a solver's input): the cells marked u (primary) and m
// (secondary) are hidden, the others published. It runs the audit plugin and
// prints every primary the audit finds under-protected or unverified, with
// its interval (a primary without a result as disclosed: [value, value]).
// Exit status 0: every primary protected; 1: some under-protected; 2: error.
func cmdAudit(ctx context.Context, env Env, log zerolog.Logger) int {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	bounds := fs.String("bounds", "auto", "a-priori bounds: auto (the file's), tauargus or nonnegative")
	singletons := fs.Bool("singletons", false, "audit against colluding single-respondent cells (needs the .frq file)")
	var views viewFiles
	fs.Func("confidential", "a confidential view TABLE.tab (repeatable; with -cover): its sensitive cells are audited through the published tables", views.addConfidential)
	fs.StringVar(&views.cover, "cover", "", "the cover table COVER.tab of the published tables and the confidential views (with -confidential)")
	if err := fs.Parse(env.Args[1:]); err != nil || fs.NArg() < 1 || (fs.NArg() > 1 && !isIntermediate(fs.Arg(0))) {
		fmt.Fprintln(env.Stderr, "usage: argus audit [-bounds auto|tauargus|nonnegative] [-singletons] FILE.jj\n"+
			"       argus audit [-bounds ...] [-confidential C.tab... -cover COVER.tab] TABLE.tab... (linked published tables, <WRITETABLE> type 5 with their .rda, audited jointly)")
		return ExitError
	}
	path := fs.Arg(0)
	var p *pluginsdk.Problem
	var err error
	if !isIntermediate(path) {
		if p, err = readJJ(path, *singletons); err != nil {
			fmt.Fprintf(env.Stderr, "argus audit: %v\n", err)
			return ExitError
		}
	}
	cat, err := loadCatalog(ctx, env, true)
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus audit: %v\n", err)
		return ExitError
	}
	entry, info, ok := cat.Lookup("AUDIT")
	if !ok {
		why := cat.Unavailable("AUDIT")
		if why != "" {
			why = "; " + why
		}
		fmt.Fprintf(env.Stderr, "argus audit: no audit plugin installed (argus-method-audit)%s\n", why)
		return ExitError
	}
	params := map[string]string{"bounds": *bounds}
	if *singletons {
		// The audit's choice of colluding single respondents, by its role.
		s, _ := pluginclient.ParamWithRole(info, pluginsdk.RoleSingletonProtection)
		v, ok := pluginclient.SingletonValue(s, pluginsdk.SingletonColluding)
		if !ok {
			fmt.Fprintln(env.Stderr, "argus audit: the audit plugin cannot let the single-respondent cells collude (install the audit plugin of this release)")
			return ExitError
		}
		params[s.Name] = v
	}
	runAudit := func(p *pluginsdk.Problem) (*pluginsdk.Result, error) {
		res, err := newRunner(log, "").Run(ctx, entry, pluginclient.Job{Method: "AUDIT", Params: params, Problem: p, JobID: "audit"})
		if err == nil && !res.Outcome.HasResult() {
			err = fmt.Errorf("%s%v", res.Outcome, res.Diagnostics)
		}
		if err == nil && len(res.Verdicts) != p.NumCells() {
			err = fmt.Errorf("the audit plugin returned no verdicts (install the audit plugin of this release)")
		}
		return res, err
	}
	if isIntermediate(path) {
		return auditSet(ctx, env, runAudit, fs.Args(), views)
	}
	res, err := runAudit(p)
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus audit: %v\n", err)
		return ExitError
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cell\tvalue\tlower\tupper\tneeded lower\tneeded upper\t")
	primaries, under := 0, 0
	for i, s := range p.Cells.Status {
		if !s.IsPrimary() {
			continue
		}
		primaries++
		v := p.Cells.Value[i]
		needLo, needHi := v-p.Cells.LowerPL[i], v+p.Cells.UpperPL[i]
		// The audit's verdict (a primary it did not judge fails).
		if res.Verdicts[i].Kind != verdict.Protected {
			under++
			fmt.Fprintf(tw, "%d\t%.10g\t%.10g\t%.10g\t%.10g\t%.10g\t\n", i, v, res.Lower[i], res.Upper[i], needLo, needHi)
		}
	}
	if under > 0 {
		tw.Flush()
	}
	fmt.Fprintf(env.Stdout, "%s: %d primaries, %d under-protected\n", path, primaries, under)
	if under > 0 {
		return 1
	}
	return ExitOK
}

// readJJ reads a JJ file (and its .frq side file, when asked) as a general
// problem: statuses from the letters (u primary, m secondary, z frozen, s
// safe), bounds and protection levels as written, relations as written.
func readJJ(path string, withFreq bool) (*pluginsdk.Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	file, err := jj.Read(f, path)
	if err != nil {
		return nil, err
	}
	p, err := problem.FromJJ(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if withFreq {
		if err := readFrq(path+".frq", p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// readFrq reads the ".frq" side file: "freq holdingfreq" per cell.
func readFrq(path string, p *pluginsdk.Problem) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	n := p.NumCells()
	p.Cells.Freq = make([]int64, n)
	for i := range n {
		var fr, hf int64
		if _, err := fmt.Fscan(f, &fr, &hf); err != nil {
			return fmt.Errorf("%s: cell %d: %w", path, i, err)
		}
		p.Cells.Freq[i] = fr
	}
	return nil
}
