// Package headless renders HTML pages in a headless Chromium, for the
// tests that check pages as a browser shows them: the DOM after the
// page's scripts ran, and a screenshot.
//
// Set-up on Debian or Ubuntu: apt-get install chromium. ARGUS_CHROMIUM
// names another binary. Tests skip, with a message, where none is found.
package headless

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Find returns the Chromium binary: ARGUS_CHROMIUM, else the first of
// chromium, chromium-browser, google-chrome on the PATH; "" when none.
func Find() string {
	if p := os.Getenv("ARGUS_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser is a Chromium binary run headless, each page in a fresh
// profile, with no network use of its own.
type Browser struct {
	Bin string
	// Width and Height are the window size (default 1200 × 900).
	Width, Height int
}

// flags are the switches of every run: headless, no sandbox (tests run as
// root in containers), no GPU, and nothing that calls home.
var flags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--hide-scrollbars"}

func (b *Browser) run(ctx context.Context, page string, extra ...string) ([]byte, time.Duration, error) {
	profile, err := os.MkdirTemp("", "argus-chromium-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(profile)
	abs, err := filepath.Abs(page)
	if err != nil {
		return nil, 0, err
	}
	w, h := b.Width, b.Height
	if w == 0 {
		w, h = 1200, 900
	}
	args := append(append([]string{}, flags...), "--user-data-dir="+profile, fmt.Sprintf("--window-size=%d,%d", w, h))
	args = append(append(args, extra...), "file://"+abs)
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, b.Bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	if err != nil {
		return nil, took, fmt.Errorf("chromium %s: %w\n%s", page, err, errOut.Bytes())
	}
	return out.Bytes(), took, nil
}

// DOM returns the page's DOM once its scripts ran (up to 10 s of page
// time), and how long the browser took, start-up included.
func (b *Browser) DOM(ctx context.Context, page string) (string, time.Duration, error) {
	out, took, err := b.run(ctx, page, "--virtual-time-budget=10000", "--dump-dom")
	return string(out), took, err
}

// Screenshot writes a PNG of the page's window to png.
func (b *Browser) Screenshot(ctx context.Context, page, png string) error {
	abs, err := filepath.Abs(png)
	if err != nil {
		return err
	}
	_, _, err = b.run(ctx, page, "--virtual-time-budget=10000", "--screenshot="+abs)
	if err != nil {
		return err
	}
	if st, err := os.Stat(abs); err != nil || st.Size() == 0 {
		return fmt.Errorf("chromium wrote no screenshot of %s", page)
	}
	return nil
}
