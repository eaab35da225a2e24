package runall

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/sdcengine/argus/argusio/atomicfile"
	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/batch"
)

// Job statuses.
const (
	StatusSucceeded   = "succeeded"   // exit 0
	StatusInteractive = "interactive" // exit 1: <GOINTERACTIVE> reached, the commands before it done
	StatusFailed      = "failed"      // the job's own error (exit 2), or transient failures past the retries
	StatusTimedOut    = "timed-out"   // killed at its time limit
	StatusInterrupted = "interrupted" // the run was stopped before the job ended
)

// Result is one job of a run as the summary shows it.
type Result struct {
	ID        string `json:"id"`
	BatchFile string `json:"batch_file"`
	Status    string `json:"status"`
	// ExitCode is argus's exit status of the last attempt (-1: killed).
	ExitCode int `json:"exit_code"`
	Attempts int `json:"attempts"`
	// Resumed tells that the job was complete from an earlier run and was
	// not run again; its figures are that run's.
	Resumed bool    `json:"resumed,omitempty"`
	Seconds float64 `json:"seconds"`
	// Cores is the job's share of the run's cores (its --cores).
	Cores int `json:"cores,omitempty"`
	// Error is why the job failed: its errors from the run report, else
	// how its process ended.
	Error string `json:"error,omitempty"`
	// Tables are the job's tables as its run report gives them.
	Tables      []TableResult `json:"tables,omitempty"`
	Primaries   int           `json:"primaries"`
	Secondaries int           `json:"secondaries"`
	// Audit is the verdict over every table: "clean", "N under-protected"
	// or "not audited".
	Audit    string   `json:"audit"`
	Warnings []string `json:"warnings,omitempty"`
	Outputs  []string `json:"outputs,omitempty"`
	Withheld []string `json:"withheld_outputs,omitempty"`
	// Reports and Views are the outputs' HTML reports and the tables'
	// pattern views.
	Reports []string `json:"reports,omitempty"`
	Views   []string `json:"views,omitempty"`
	// Dir is the job's directory (logbook, run report, stderr).
	Dir string `json:"dir"`
}

// TableResult is one table of a job.
type TableResult struct {
	Number      int    `json:"number"`
	Table       string `json:"table"`
	Cells       int    `json:"cells"`
	Primaries   int    `json:"primaries"`
	Secondaries int    `json:"secondaries"`
	Method      string `json:"method,omitempty"`
	Audit       string `json:"audit"`
}

// Failed reports whether the job did not succeed.
func (r *Result) Failed() bool {
	return r.Status != StatusSucceeded && r.Status != StatusInteractive
}

// auditVerdict says what an audit found.
func auditVerdict(a *batch.AuditReport) string {
	switch {
	case a == nil || !a.Done:
		return "not audited"
	case a.UnderProtected > 0:
		return fmt.Sprintf("%d under-protected", a.UnderProtected)
	}
	return "clean"
}

// ReadReport reads a run report.
func ReadReport(path string) (*batch.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep batch.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("run report %s: %w", path, err)
	}
	return &rep, nil
}

// fill copies what the summary shows from a job's run report.
func (r *Result) fill(rep *batch.Report) {
	r.Tables, r.Primaries, r.Secondaries = nil, 0, 0
	under, audited := 0, 0
	for _, t := range rep.Tables {
		r.Tables = append(r.Tables, TableResult{Number: t.Number, Table: t.Table, Cells: t.Cells, Primaries: t.Primaries,
			Secondaries: t.Secondaries, Method: t.Method, Audit: auditVerdict(t.Audit)})
		r.Primaries += t.Primaries
		r.Secondaries += t.Secondaries
		if t.Audit != nil && t.Audit.Done {
			audited++
			under += t.Audit.UnderProtected
		}
	}
	switch {
	case under > 0:
		r.Audit = fmt.Sprintf("%d under-protected", under)
	case audited > 0:
		r.Audit = "clean"
	default:
		r.Audit = "not audited"
	}
	r.Warnings = rep.Warnings
	r.Outputs, r.Reports, r.Views = nil, nil, nil
	for _, o := range rep.Outputs {
		r.Outputs = append(r.Outputs, o.File)
		if o.Report != "" {
			r.Reports = append(r.Reports, o.Report)
		}
		if o.View != "" {
			r.Views = append(r.Views, o.View)
		}
	}
	r.Withheld = nil
	for _, o := range rep.Withheld {
		r.Withheld = append(r.Withheld, o.File)
	}
	if len(rep.Errors) > 0 {
		r.Error = joinErrors(rep.Errors)
	}
}

func joinErrors(errs []string) string {
	const max = 3
	s := ""
	for i, e := range errs {
		if i == max {
			s += fmt.Sprintf("; and %d more", len(errs)-max)
			break
		}
		if i > 0 {
			s += "; "
		}
		s += e
	}
	return s
}

// Marker is a job's done-marker (done.json in its directory), written
// atomically after its run report: the job ended with exit status 0 or 1
// and these were its files. A later run skips the job while the batch
// file is unchanged and every file listed is still as it was written.
type Marker struct {
	BatchFile string `json:"batch_file"`
	// BatchSHA256 is the batch file's checksum when the job ran.
	BatchSHA256 string    `json:"batch_sha256"`
	Finished    time.Time `json:"finished"`
	// Files are the job's outputs (with companions and HTML reports) and
	// its run report.
	Files  []FileSum `json:"files"`
	Result Result    `json:"result"`
}

// FileSum is one file and its checksum.
type FileSum struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

func fileSHA256(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// OutputFiles lists every file a run report says the job wrote: outputs,
// their companions (.rda of type 5, .frq of type 6), HTML reports and
// table views.
func OutputFiles(rep *batch.Report) []string {
	var files []string
	for _, o := range rep.Outputs {
		files = append(files, o.File)
		switch output.Type(o.Type) {
		case output.TypeIntermediate:
			files = append(files, output.MetadataName(o.File))
		case output.TypeJJ:
			files = append(files, o.File+".frq")
		}
		if o.Report != "" {
			files = append(files, o.Report)
		}
		if o.View != "" {
			files = append(files, o.View)
		}
	}
	return files
}

// writeMarker records a finished job in dir.
func writeMarker(dir, batchFile, batchSum string, rep *batch.Report, res Result) error {
	m := Marker{BatchFile: batchFile, BatchSHA256: batchSum, Finished: time.Now().UTC(), Result: res}
	for _, p := range append(OutputFiles(rep), filepath.Join(dir, ReportFile)) {
		sum, size, err := fileSHA256(p)
		if err != nil {
			return fmt.Errorf("done-marker of %s: %w", batchFile, err)
		}
		m.Files = append(m.Files, FileSum{Path: p, Size: size, SHA256: sum})
	}
	return atomicfile.Write(filepath.Join(dir, DoneFile), 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
}

// errIncomplete tells that a job must run (again).
var errIncomplete = errors.New("not complete")

// checkMarker returns the marker of a job that is complete: the marker
// exists, the batch file is unchanged and every file it lists is as
// written. Otherwise the error says why the job must run.
func checkMarker(dir, batchSum string) (*Marker, error) {
	b, err := os.ReadFile(filepath.Join(dir, DoneFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, errIncomplete
	}
	if err != nil {
		return nil, err
	}
	var m Marker
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: done-marker unreadable: %v", errIncomplete, err)
	}
	if m.BatchSHA256 != batchSum {
		return nil, fmt.Errorf("%w: the batch file changed", errIncomplete)
	}
	for _, f := range m.Files {
		sum, size, err := fileSHA256(f.Path)
		if err != nil || size != f.Size || sum != f.SHA256 {
			return nil, fmt.Errorf("%w: %s is missing or changed", errIncomplete, f.Path)
		}
	}
	return &m, nil
}
