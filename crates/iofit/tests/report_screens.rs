//! The reports as a reader sees them: each of the five HTML reports (plan, predict, compare,
//! bench, demo) is opened in headless Chromium at 1280 and 390 px wide; a script measures the
//! page and writes what it found into the DOM, which Chromium dumps. The test fails when the
//! answer card is not within the first 900 px, or when any text runs out of its box (a page
//! wider than the screen, a cell whose text is wider than the cell, a chart label outside its
//! chart). Screenshots are kept under the target directory for a person to look at.
//!
//! Without chromium on PATH the tests say so and pass (the render tests still run elsewhere).

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Injected into a copy of the report: measures and writes JSON into `data-measure`.
const MEASURE: &str = r#"<script>
(function () {
  const out = { width: innerWidth, page_width: document.documentElement.scrollWidth, problems: [] };
  const card = document.getElementById('answer');
  if (card) {
    const r = card.getBoundingClientRect();
    out.card_top = r.top + scrollY;
    out.cells = [...card.querySelectorAll('.cell')].map(c => {
      const h = c.querySelector('h3'); const first = h.nextElementSibling || h;
      return { name: h.textContent, bottom: first.getBoundingClientRect().bottom + scrollY };
    });
  }
  // Text wider than its own box (a scrolling table box is allowed to scroll).
  for (const el of document.querySelectorAll('p,li,dd,dt,td,th,caption,h1,h2,h3,h4,.verdict,label,summary')) {
    if (el.closest('.scroll') && (el.tagName === 'TD' || el.tagName === 'TH' || el.tagName === 'CAPTION')) {
      if (el.scrollWidth > el.clientWidth + 1) out.problems.push('cell text wider than its cell: ' + el.textContent.slice(0, 80));
      continue;
    }
    const r = el.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).display !== 'inline')
      out.problems.push('text wider than its box: ' + el.textContent.slice(0, 80));
    if (r.right > innerWidth + 1) out.problems.push('text beyond the screen: ' + el.textContent.slice(0, 80));
  }
  // Every chart label inside its chart.
  for (const svg of document.querySelectorAll('svg.chart')) {
    const vb = svg.viewBox.baseVal;
    const s = svg.getBoundingClientRect();
    const scale = vb.width / s.width;
    for (const t of svg.querySelectorAll('text')) {
      // The drawn box (after any rotation), in the chart's own units.
      const r = t.getBoundingClientRect();
      if (r.width === 0) continue;
      const left = (r.left - s.left) * scale, right = (r.right - s.left) * scale;
      const top = (r.top - s.top) * scale, bottom = (r.bottom - s.top) * scale;
      if (left < -0.5 || right > vb.width + 0.5 || top < -0.5 || bottom > vb.height + 0.5)
        out.problems.push('chart label outside its chart: ' + t.textContent.slice(0, 80) +
          ' [' + Math.round(left) + '..' + Math.round(right) + ' of ' + vb.width + ']');
    }
  }
  if (out.page_width > innerWidth + 1) out.problems.push('page wider than the screen: ' + out.page_width);
  // Interactions, after the measuring: sort the designs by total cost (twice: descending),
  // and switch the binding limit to the warm cache.
  const table = document.querySelector('table.sortable');
  if (table) {
    const heads = [...table.tHead.rows[0].cells];
    const i = heads.findIndex(th => /^total/.test(th.textContent));
    if (i >= 0) {
      heads[i].click(); heads[i].click();
      out.sorted_totals = [...table.tBodies[0].rows].map(r =>
        parseFloat(r.cells[i].textContent.replace(/^[^0-9.-]+/, '').replace(/,/g, '')));
    }
  }
  const warm = document.getElementById('cache-warm');
  if (warm) {
    const shown = sel => getComputedStyle(document.querySelector(sel)).display !== 'none';
    out.cold_shown_first = shown('.when-cold') && !shown('.when-warm');
    warm.click();
    out.warm_shown_after = shown('.when-warm') && !shown('.when-cold');
  }
  // The report runs in a same-origin frame of the exact width: hand the figures up.
  parent.document.body.setAttribute('data-measure', JSON.stringify(out));
})();
</script>"#;

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())
    })
}

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| on_path(name))
}

/// One browser at a time: the tests run in parallel and a loaded machine slows each.
static BROWSER: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs chromium headless with a deadline; returns its stdout.
fn run_chromium(chromium: &Path, profile: &Path, args: &[String]) -> String {
    let _one = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
    let dumped = profile.with_extension("out");
    let mut child = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        // A file, not a pipe: a dumped page larger than the pipe's buffer would block the
        // browser until the deadline.
        .stdout(std::fs::File::create(&dumped).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish within 180 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    String::from_utf8_lossy(&std::fs::read(&dumped).unwrap()).into_owned()
}

/// What the page script measured at one width.
fn measure(chromium: &Path, html: &Path, width: u32, dir: &Path) -> serde_json::Value {
    let page = std::fs::read_to_string(html).unwrap();
    assert!(!page.contains("src=\"http"), "the report loads nothing");
    // Headless Chromium keeps its window at least 500 px wide, so the page is measured in a
    // frame of exactly `width` (its own viewport: media queries see `width`).
    let framed = page
        .replace("</body>", &format!("{MEASURE}</body>"))
        .replace('&', "&amp;")
        .replace('"', "&quot;");
    let measured = dir.join(format!("measured-{width}.html"));
    std::fs::write(
        &measured,
        format!(
            "<!DOCTYPE html><html><body style=\"margin:0\"><iframe style=\"border:0\" \
             width=\"{width}\" height=\"900\" srcdoc=\"{framed}\"></iframe></body></html>"
        ),
    )
    .unwrap();
    let dom = run_chromium(
        chromium,
        &dir.join(format!("profile-{width}")),
        &[
            format!("--window-size={},900", width.max(1300)),
            "--dump-dom".into(),
            format!("file://{}", measured.display()),
        ],
    );
    let start = dom
        .find("data-measure=\"")
        .unwrap_or_else(|| panic!("no measurement in the dumped page at {width} px"))
        + "data-measure=\"".len();
    let end = start + dom[start..].find('"').unwrap();
    let json = dom[start..end]
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    serde_json::from_str(&json).unwrap()
}

/// Where the screenshots are kept for a person to look at.
fn shots_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-screens");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Measures `html` at both widths, keeps screenshots, and asserts the answer card is within
/// the first 900 px and nothing overflows.
fn check_report(name: &str, html: &Path, required_cells: &[&str]) -> Option<serde_json::Value> {
    let Some(chromium) = chromium() else {
        eprintln!("chromium is not on PATH: the {name} report's screen checks are skipped");
        return None;
    };
    let mut last = None;
    let work = tempfile::tempdir().unwrap();
    for width in [1280u32, 390] {
        let shot = shots_dir().join(format!("{name}-{width}.png"));
        run_chromium(
            &chromium,
            &work.path().join(format!("shot-profile-{width}")),
            &[
                format!("--window-size={width},900"),
                format!("--screenshot={}", shot.display()),
                format!("file://{}", html.display()),
            ],
        );
        let png = std::fs::read(&shot).unwrap();
        assert!(
            png.starts_with(b"\x89PNG") && png.len() > 10_000,
            "{name} {width}"
        );
        let measured = measure(&chromium, html, width, work.path());
        assert_eq!(measured["width"], width, "{name}: the viewport width");
        let top = measured["card_top"]
            .as_f64()
            .unwrap_or_else(|| panic!("{name} at {width} px has no answer card: {measured}"));
        assert!(
            top < 300.0,
            "{name} at {width} px: the card starts at {top} px"
        );
        let cells = measured["cells"].as_array().unwrap();
        for required in required_cells {
            let cell = cells
                .iter()
                .find(|c| c["name"].as_str() == Some(required))
                .unwrap_or_else(|| panic!("{name} at {width} px: no {required} in the card"));
            let bottom = cell["bottom"].as_f64().unwrap();
            assert!(
                bottom <= 900.0,
                "{name} at {width} px: the card's {required} ends at {bottom} px, below the first 900"
            );
        }
        let problems = measured["problems"].as_array().unwrap();
        assert!(
            problems.is_empty(),
            "{name} at {width} px: {}",
            serde_json::to_string_pretty(problems).unwrap()
        );
        last = Some(measured);
    }
    last
}

/// The totals after two clicks on the "total" header: most expensive first.
fn assert_sorted_descending(measured: &serde_json::Value) {
    let totals: Vec<f64> = measured["sorted_totals"]
        .as_array()
        .expect("a sortable designs table")
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(totals.len() >= 2, "{totals:?}");
    assert!(totals.windows(2).all(|w| w[0] >= w[1]), "{totals:?}");
    assert!(totals[0] > totals[totals.len() - 1], "{totals:?}");
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/results")
        .join(name)
}

fn iofit() -> Command {
    Command::cargo_bin("iofit").unwrap()
}

#[test]
fn demo_report_answers_on_its_first_screen() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("demo.html");
    iofit()
        .args([
            "demo",
            "--run-seconds",
            "0.3",
            "--engine",
            "psync",
            "--report",
        ])
        .arg(&html)
        .env("TMPDIR", dir.path())
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    // The answer: design, cost split with its basis, the binding limit cold and warm, verdict.
    let card = &page[page.find("id=\"answer\"").unwrap()..page.find("</section>").unwrap()];
    for needle in [
        "Standard_",
        "VM $",
        "+ disks $",
        "pay-as-you-go",
        "USD",
        "catalog table",
        "headroom",
        "class=\"verdict",
    ] {
        assert!(card.contains(needle), "{needle} missing from the card");
    }
    // The cold/warm story belongs to designs that cache reads; the demo's design #1 follows
    // the catalog's prices, and not every cheapest design caches.
    let caches = page.contains("ReadOnly");
    for needle in ["cold cache", "warm cache"] {
        assert_eq!(
            card.contains(needle),
            caches,
            "{needle} in the card: {caches}"
        );
    }
    if let Some(measured) = check_report(
        "demo",
        &html,
        &["Design", "Monthly cost", "Binding limit", "Verdict"],
    ) {
        assert_sorted_descending(&measured);
        if caches {
            assert_eq!(measured["cold_shown_first"], true, "{measured}");
            assert_eq!(measured["warm_shown_after"], true, "{measured}");
        }
    }
}

#[test]
fn plan_report_answers_on_its_first_screen() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("plan.html");
    iofit()
        .args([
            "plan",
            "--iops",
            "16000",
            "--throughput-mb-s",
            "200",
            "--capacity-gib",
            "2048",
            "--read-pct",
            "70",
            "--report",
        ])
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    let card = &page[page.find("id=\"answer\"").unwrap()..page.find("</section>").unwrap()];
    for needle in [
        "VM $",
        "+ disks $",
        "USD",
        "pay-as-you-go",
        "catalog table",
        "headroom",
    ] {
        assert!(
            card.contains(needle),
            "{needle} missing from the plan's card"
        );
    }
    if let Some(measured) =
        check_report("plan", &html, &["Design", "Monthly cost", "Binding limit"])
    {
        assert_sorted_descending(&measured);
    }
}

#[test]
fn predict_report_answers_on_its_first_screen() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("predict.html");
    iofit()
        .args([
            "predict",
            "--vm",
            "Standard_D8s_v5",
            "--disk",
            "4xP30:readonly",
            "--rw",
            "randrw",
            "--report",
        ])
        .arg(&html)
        .assert()
        .success();
    check_report(
        "predict",
        &html,
        &["Design", "Monthly cost", "Binding limit"],
    );
}

#[test]
fn compare_report_answers_on_its_first_screen() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("compare.html");
    iofit()
        .arg("compare")
        .arg(data("iofit-randrw-8k.json"))
        .arg("--requirements")
        .arg(data("req-oltp-pass.toml"))
        .args([
            "--vm",
            "DS13",
            "--disks",
            "4xP30:none",
            "--edition",
            "seed-2016",
        ])
        .arg("--report")
        .arg(&html)
        .assert()
        .code(0);
    check_report("compare", &html, &["Design", "Binding limit", "Verdict"]);
}

#[test]
fn bench_report_answers_on_its_first_screen() {
    let nocache = tempfile::tempdir().unwrap();
    let readcache = tempfile::tempdir().unwrap();
    let html = nocache.path().join("bench.html");
    iofit()
        .args(["bench", "azure-premium", "--quiet", "--nocache"])
        .arg(nocache.path())
        .arg("--readcache")
        .arg(readcache.path())
        .args([
            "--skip-warmup",
            "--runtime",
            "0.2",
            "--size",
            "4m",
            "--workers",
            "2",
            "--iodepth",
            "4",
            "--report",
        ])
        .arg(&html)
        .assert()
        .success();
    check_report("bench", &html, &["Design", "Verdict"]);
}
