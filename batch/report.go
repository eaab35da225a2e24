package batch

import (
	"encoding/json"
	"io"
	"time"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/poserr"
)

// Report is the machine-readable account of one job, for scheduled runs.
type Report struct {
	BatchFile   string         `json:"batch_file"`
	Version     string         `json:"version"`
	Started     time.Time      `json:"started"`
	Finished    time.Time      `json:"finished"`
	ExitCode    int            `json:"exit_code"`
	Interactive bool           `json:"interactive,omitempty"`
	Steps       []*StepReport  `json:"steps"`
	Tables      []TableReport  `json:"tables,omitempty"`
	Outputs     []OutputReport `json:"outputs,omitempty"`
	// Withheld are the outputs not written because their table failed its
	// audit.
	Withheld []OutputReport `json:"withheld_outputs,omitempty"`
	// PublishUnsafe tells that the job allowed writing unsafe tables.
	PublishUnsafe bool     `json:"publish_unsafe,omitempty"`
	Warnings      []string `json:"warnings,omitempty"`
	Errors        []string `json:"errors,omitempty"`
	// Hints give advice on the errors, for people.
	Hints []string `json:"hints,omitempty"`

	runReportErr error
}

// RunReportError tells why the run report must not be written to
// Config.RunReport (it is one of the job's inputs or outputs), or nil.
func (r *Report) RunReportError() error { return r.runReportErr }

// StepReport is one executed command.
type StepReport struct {
	Line     int           `json:"line"`
	Command  string        `json:"command"`
	Duration float64       `json:"seconds"`
	Method   *MethodReport `json:"method,omitempty"`
	Error    string        `json:"error,omitempty"`
}

// MethodReport is the result of a <SUPPRESS>.
type MethodReport struct {
	Code    string `json:"code"`
	Plugin  string `json:"plugin"`
	Version string `json:"plugin_version"`
	// Params are the parameters the method ran with: the batch file's
	// positional arguments and the configured ones (defaults not shown).
	Params         map[string]string `json:"params,omitempty"`
	Outcome        string            `json:"outcome"`
	Secondaries    int               `json:"secondaries"`
	SuppressedCost float64           `json:"suppressed_cost"`
	Objective      float64           `json:"objective,omitempty"`
	Gap            float64           `json:"gap,omitempty"`
	Seconds        float64           `json:"seconds"`
	// Threads is the number of threads the method was given.
	Threads int `json:"threads,omitempty"`
	// Figures are the method's own figures (its Stats.Extra: sub-tables
	// solved, time limits hit, backtracks, ...), for understanding where a
	// run spent its time.
	Figures map[string]float64 `json:"figures,omitempty"`
	// Published are the parameters released with the table (ECTA's α and
	// β), nil for none.
	Published *PublishedReport `json:"published,omitempty"`
	Audit     *AuditReport     `json:"audit,omitempty"`
}

// PublishedReport holds the parameters released with an adjusted table.
type PublishedReport struct {
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
}

// AuditReport is the audit of a suppression pattern.
type AuditReport struct {
	Done bool `json:"done"`
	// Threads is the number of threads the audit was given.
	Threads int `json:"threads,omitempty"`
	// Mode is what the audit computed: "bounds" (the exact attacker
	// intervals) or "verdicts" (protected or not, as exactly); "adjusted"
	// for an adjusted table, "intervals" for published intervals (IP).
	Mode           string `json:"mode,omitempty"`
	Primaries      int    `json:"primaries"`
	UnderProtected int    `json:"under_protected"`
	Cells          []int  `json:"under_protected_cells,omitempty"`
	// Unverified counts the primaries among UnderProtected whose
	// protection the audit could not prove (an LP without result, or the
	// audit's time limit).
	Unverified int `json:"unverified,omitempty"`
	// TimedOut reports that the audit stopped at its time limit (Limit, in
	// seconds) before it proved every primary.
	TimedOut bool    `json:"timed_out,omitempty"`
	Limit    float64 `json:"limit_seconds,omitempty"`
	// Seconds is the audit's wall-clock time; Figures are the audit
	// plugin's own (LPs, components, largest component, ...).
	Seconds float64            `json:"seconds,omitempty"`
	Figures map[string]float64 `json:"figures,omitempty"`
	// CellCodes name the under-protected cells by their codes
	// ("Region=3, Size=Total"), at most 100.
	CellCodes []string `json:"under_protected_codes,omitempty"`
	// Singletons is "collude" when the audit let the single-respondent
	// primaries collude (the method was asked for singleton protection).
	Singletons string `json:"singletons,omitempty"`
	// CollusionUnderProtected counts, for a method asked for τ-Argus's
	// single-respondent rules (MOD, OPT), the primaries the single
	// respondents colluding could narrow below their protection levels;
	// reported, not failed.
	CollusionUnderProtected int `json:"collusion_under_protected,omitempty"`
	// Midpoint counts, for published intervals (Mode "intervals"), the
	// primaries whose true value lies at their interval's midpoint (within
	// the table's last decimal): failures among UnderProtected, unless
	// MidpointAccepted (the method was asked by name to keep its levels).
	Midpoint         int  `json:"midpoint,omitempty"`
	MidpointAccepted bool `json:"midpoint_accepted,omitempty"`
	// Defects are, for an adjusted table (Mode "adjusted"), what makes it
	// unpublishable beyond its primaries: relations violated, cells outside
	// their bounds, frozen cells changed; "" for none.
	Defects string `json:"defects,omitempty"`
}

// TableReport describes one table as the job left it.
type TableReport struct {
	Number    int    `json:"number"`
	Table     string `json:"table"`
	Cells     int    `json:"cells"`
	Primaries int    `json:"primaries"`
	// Secondaries and SuppressedCost are those of the final statuses
	// (cost as the method saw it: the cost variable with λ).
	Secondaries    int     `json:"secondaries"`
	SuppressedCost float64 `json:"suppressed_cost"`
	// Method is the protection the table last received.
	Method string `json:"method,omitempty"`
	// Audit is the audit of that protection, this table's cells only.
	Audit *AuditReport `json:"audit,omitempty"`
}

// OutputReport is one written output.
type OutputReport struct {
	Table  int    `json:"table"`
	Type   int    `json:"type"`
	File   string `json:"file"`
	Report string `json:"report"`
	// View is the table's pattern view, written with this output.
	View string `json:"view,omitempty"`
}

func newReport(cfg Config) *Report {
	return &Report{BatchFile: cfg.BatchFile, Version: cfg.Version, Started: cfg.Now(), PublishUnsafe: cfg.PublishUnsafe}
}

func (r *Report) step(h *arb.Header) *StepReport {
	s := &StepReport{Line: h.Pos.Line, Command: poserr.Cut(h.Line, MaxEchoLine)}
	r.Steps = append(r.Steps, s)
	return s
}

func (r *Report) lastStep() *StepReport { return r.Steps[len(r.Steps)-1] }

// setTables records the final state of every table that was built.
func (r *Report) setTables(tables []*tableSpec) {
	r.Tables = r.Tables[:0]
	for i, t := range tables {
		if t.table == nil {
			continue
		}
		tr := TableReport{Number: i + 1, Table: describe(t), Cells: t.table.Size(), Method: t.method, Audit: t.audit}
		for k := range t.table.Cells {
			c := &t.table.Cells[k]
			switch {
			case c.Status.IsPrimary():
				tr.Primaries++
			case c.Status.IsSecondary():
				tr.Secondaries++
				tr.SuppressedCost += t.table.CostValue(c)
			}
		}
		r.Tables = append(r.Tables, tr)
	}
}

func (r *Report) finish(code int, now time.Time) {
	r.ExitCode = code
	r.Finished = now
}

// WriteJSON writes the report as indented JSON. Texts of the job that are
// not UTF-8 (Latin-1 names and codes) are written as their Windows-1252
// reading.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(utf8Texts(r))
}
