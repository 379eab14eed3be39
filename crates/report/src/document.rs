//! The format-neutral report document: a title and blocks of content (text, a run, a
//! comparison, limits, requirements, a prediction, tables). Commands build one; the `html`,
//! `markdown` and `csv` modules each render it, so every format shows the same content.
//!
//! ```
//! use iofit_report::document::{Document, Table};
//!
//! let document = Document::new("Plan")
//!     .section("Design", "Four P30 disks striped.")
//!     .table(Table::new("Ranking", &["rank", "VM"]).row(vec!["1".into(), "DS13".into()]));
//! assert!(document.render_markdown().contains("| 1 | DS13 |"));
//! assert!(document.render().contains("<td>DS13</td>"));
//! ```

use iofit_model::requirements::Requirements;
use iofit_predict::Prediction;
use iofit_stats::RunResult;
use iofit_verdict::{Comparison, LimitBar};

/// A piece of the report, kept as data so that every renderer shows the same content.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// A heading and paragraphs (split at blank lines).
    Text {
        heading: String,
        body: String,
    },
    Run(Box<RunResult>),
    Comparison(Box<Comparison>),
    Limits {
        title: String,
        bars: Vec<LimitBar>,
    },
    Requirements(Box<Requirements>),
    Prediction(Box<Prediction>),
    Table(Table),
    /// A line chart of named series (e.g. IOPS per host over time, so a slow host stands out).
    /// The answer first: design, cost, binding limit, verdict, next steps (see
    /// [`crate::summary`]). Always rendered before every other block.
    Summary(Box<crate::summary::Summary>),
    Chart {
        title: String,
        x_label: String,
        y_label: String,
        series: Vec<crate::chart::Series>,
        /// Spans shaded behind the lines (intervals over a limit).
        bands: Vec<crate::chart::Band>,
    },
}

/// A plain table any caller can add (a plan's ranking, a catalog excerpt).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub caption: String,
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// The HTML lets a reader sort the rows by any column (a click on its header).
    pub sortable: bool,
}

impl Table {
    pub fn new(caption: impl Into<String>, headers: &[&str]) -> Self {
        Table {
            caption: caption.into(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            sortable: false,
        }
    }

    /// Rows a reader may sort in the HTML by clicking a column's header.
    pub fn sortable(mut self) -> Self {
        self.sortable = true;
        self
    }

    pub fn row(mut self, cells: Vec<String>) -> Self {
        self.rows.push(cells);
        self
    }
}

/// The report as data: a title and blocks, in order. HTML (`render`), Markdown
/// (`render_markdown`) and CSV (`render_csv`) all render this one model, so every format shows
/// the same content.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    pub title: String,
    pub blocks: Vec<Block>,
}

impl Document {
    pub fn new(title: impl Into<String>) -> Self {
        Document {
            title: title.into(),
            blocks: Vec::new(),
        }
    }

    /// The answer card; it goes first whatever the order of the calls.
    pub fn summary(mut self, summary: crate::summary::Summary) -> Self {
        self.blocks.retain(|b| !matches!(b, Block::Summary(_)));
        self.blocks.insert(0, Block::Summary(Box::new(summary)));
        self
    }

    pub fn section(mut self, heading: impl Into<String>, body: impl Into<String>) -> Self {
        self.blocks.push(Block::Text {
            heading: heading.into(),
            body: body.into(),
        });
        self
    }

    pub fn run_result(mut self, run: &RunResult) -> Self {
        self.blocks.push(Block::Run(Box::new(run.clone())));
        self
    }

    pub fn comparison(mut self, comparison: &Comparison) -> Self {
        self.blocks
            .push(Block::Comparison(Box::new(comparison.clone())));
        self
    }

    /// The design's limits; bars of different units are drawn as separate charts.
    pub fn limits(self, bars: &[LimitBar]) -> Self {
        self.limits_titled("Limits of the design", bars)
    }

    pub fn limits_titled(mut self, title: impl Into<String>, bars: &[LimitBar]) -> Self {
        self.blocks.push(Block::Limits {
            title: title.into(),
            bars: bars.to_vec(),
        });
        self
    }

    pub fn requirements(mut self, requirements: &Requirements) -> Self {
        self.blocks
            .push(Block::Requirements(Box::new(requirements.clone())));
        self
    }

    /// A design's prediction: what each volume delivers, every limit with its headroom, the
    /// binding one marked in a chart, and the prediction's assumptions, warnings and advice.
    pub fn prediction(mut self, prediction: &Prediction) -> Self {
        self.blocks
            .push(Block::Prediction(Box::new(prediction.clone())));
        self
    }

    pub fn table(mut self, table: Table) -> Self {
        self.blocks.push(Block::Table(table));
        self
    }

    /// A line chart of `series` (x and y labels name their units).
    pub fn chart(
        self,
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
        series: Vec<crate::chart::Series>,
    ) -> Self {
        self.chart_banded(title, x_label, y_label, series, Vec::new())
    }

    /// A line chart of `series` with `bands` shaded behind the lines.
    pub fn chart_banded(
        mut self,
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
        series: Vec<crate::chart::Series>,
        bands: Vec<crate::chart::Band>,
    ) -> Self {
        self.blocks.push(Block::Chart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            series,
            bands,
        });
        self
    }
}

/// The formats a [`Document`] is written in as one file (`--report FILE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    Html,
    Markdown,
}

impl ReportFormat {
    /// The document in this format.
    pub fn render(self, document: &Document) -> String {
        match self {
            ReportFormat::Html => document.render(),
            ReportFormat::Markdown => document.render_markdown(),
        }
    }
}
