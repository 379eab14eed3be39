//! The answer first: one card at the top of every report with the chosen design, its monthly
//! cost split into VM and disks with the price basis, the one limit that binds with its
//! headroom, the verdict of a run against the requirements, and what to do next.
//!
//! The binding limit is chosen and named here once ([`binding_check`], [`limit_label`]) and
//! every section of the HTML report uses the same choice and the same name.
//!
//! ```
//! use iofit_report::summary::{CostSplit, Summary, SummaryVerdict};
//!
//! let summary = Summary {
//!     design: vec![("VM".into(), "Standard_DS3".into())],
//!     cost: Some(CostSplit {
//!         vm_usd_month: Some(224.84),
//!         disks_usd_month: Some(426.25),
//!         operations_usd_month: None,
//!         total_usd_month: Some(651.09),
//!         complete: true,
//!         basis: "eastus, USD, pay-as-you-go, Linux".into(),
//!         currency: "USD".into(),
//!     }),
//!     verdict: Some(SummaryVerdict {
//!         pass: true,
//!         words: "every requirement met".into(),
//!         badge: None,
//!     }),
//!     ..Default::default()
//! };
//! let html = iofit_report::html::HtmlReport::new("t").summary(summary).render();
//! assert!(html.contains("VM $224.84 + disks $426.25"));
//! ```

use iofit_model::catalog::TableInfo;
use iofit_model::units::group_thousands;
use iofit_planner::PlannedDesign;
use iofit_predict::{LimitCheck, LimitKind, Prediction};
use iofit_verdict::Comparison;
use std::borrow::Borrow;

/// What the card says; every part is optional, a report shows what it has.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Rows of the design: ("VM", "Standard_DS3, 4 vCPU, 14 GiB"), ("data", "3 x P30 ...").
    pub design: Vec<(String, String)>,
    pub cost: Option<CostSplit>,
    /// The limit that binds first as load grows (cold cache: every read reaches the disks).
    pub binding: Option<BindingLine>,
    /// The same design with a warm host cache, when the design caches reads and the limit or
    /// its headroom differs: the report offers a toggle between the two.
    pub binding_warm: Option<BindingLine>,
    pub verdict: Option<SummaryVerdict>,
    /// What to do next, one step a line.
    pub next: Vec<String>,
}

/// The monthly cost of a design, VM and disks apart, and what the prices are.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct CostSplit {
    #[serde(rename = "vm_price_per_month", alias = "vm_usd_month")]
    pub vm_usd_month: Option<f64>,
    #[serde(rename = "disks_price_per_month", alias = "disks_usd_month")]
    pub disks_usd_month: Option<f64>,
    /// Standard SSD/HDD disk operations, when charged and sourced.
    #[serde(rename = "operations_price_per_month", alias = "operations_usd_month")]
    pub operations_usd_month: Option<f64>,
    #[serde(rename = "total_price_per_month", alias = "total_usd_month")]
    pub total_usd_month: Option<f64>,
    /// Whether the total holds every charge (operations sourced).
    pub complete: bool,
    /// Region, way of paying, OS, currency, catalog date and source of the prices.
    pub basis: String,
    /// ISO 4217 code of every amount (the `*_usd_*` fields hold amounts in it); empty reads
    /// as USD.
    pub currency: String,
}

/// The binding limit in one line: its name as every section gives it and its use.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BindingLine {
    pub name: String,
    /// "12,906 of 15,000 IOPS used, 14% headroom".
    pub detail: String,
}

/// A run's verdict against the requirements.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryVerdict {
    pub pass: bool,
    pub words: String,
    /// The badge's word when it is not PASS/FAIL against requirements (a bench has none:
    /// "COMPLETE" or "CUT SHORT").
    pub badge: Option<String>,
}

/// A limit's name as every section prints it: a volume's limits carry the volume's label
/// ("data: 3 x P30 striped, IOPS"), the VM's stand alone.
pub fn limit_label(check: &LimitCheck) -> String {
    if check.scope == "vm" {
        check.name.clone()
    } else {
        format!("{}: {}", check.scope, check.name)
    }
}

/// [`limit_label`] of the prediction's own binding record.
pub fn limit_label_of_binding(binding: &iofit_predict::Binding) -> String {
    if binding.scope == "vm" {
        binding.name.clone()
    } else {
        format!("{}: {}", binding.scope, binding.name)
    }
}

/// Whether a check can be where the design throttles: a published rate limit. The queue
/// depth check is left out: its depth is one the tool chose itself from an assumed service
/// time, not a limit of the VM or the disks.
pub(crate) fn can_bind(check: &LimitCheck) -> bool {
    check.kind.caps_sustained_rate()
        && !matches!(
            check.kind,
            LimitKind::QueueDepth | LimitKind::StripeMembersBusy
        )
        && check.limit.is_some()
}

/// The one limit that binds: the prediction's own when it is a published rate limit, else the
/// published rate limit with the least headroom.
pub fn binding_check(prediction: &Prediction) -> Option<&LimitCheck> {
    if let Some(binding) = &prediction.binding {
        if let Some(check) = prediction
            .limits
            .iter()
            .find(|c| c.kind == binding.kind && c.scope == binding.scope && can_bind(c))
        {
            return Some(check);
        }
    }
    prediction
        .limits
        .iter()
        .filter(|c| can_bind(c))
        .filter_map(|c| c.headroom_pct.map(|pct| (pct, c)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// The published rate limit of one volume with the least headroom, with that headroom: the
/// volume's own first limit to bind (the VM's shared limits are in [`binding_check`]).
pub fn volume_binding_text(prediction: &Prediction, label: &str) -> String {
    prediction
        .limits
        .iter()
        .filter(|c| c.scope == label && can_bind(c))
        .filter_map(|c| c.headroom_pct.map(|pct| (pct, c)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(pct, c)| format!("{} ({} headroom)", c.name, percent(pct)))
        .unwrap_or_else(|| "-".into())
}

/// The binding limit's label, `-` when no limit binds.
pub fn binding_label(prediction: &Prediction) -> String {
    binding_check(prediction)
        .map(limit_label)
        .unwrap_or_else(|| "-".into())
}

/// The binding limit with what the design uses of it and the headroom left.
pub fn binding_line(prediction: &Prediction) -> Option<BindingLine> {
    let check = binding_check(prediction)?;
    let suffix = check.unit.suffix();
    let limit = check.limit?;
    if check.load_unknown {
        return Some(BindingLine {
            name: limit_label(check),
            detail: format!(
                "{}{suffix}, first of the published limits; the load is unknown",
                group_thousands(limit)
            ),
        });
    }
    let headroom = check
        .headroom_pct
        .map(|pct| format!(", {} headroom", percent(pct)))
        .unwrap_or_default();
    Some(BindingLine {
        name: limit_label(check),
        detail: format!(
            "{}{suffix} of {}{suffix} used{headroom}",
            group_thousands(check.used),
            group_thousands(limit)
        ),
    })
}

/// A percentage that cannot be impossible: below -100% (more used than the limit by a large
/// factor) reads "over by N x" instead.
pub fn percent(pct: f64) -> String {
    if !pct.is_finite() {
        "-".into()
    } else if pct < -100.0 {
        format!("over by {:.1} x", 1.0 - pct / 100.0)
    } else {
        format!("{pct:.0}%")
    }
}

/// A planned design's rows: VM, then per volume disks, caching, stripe and depth.
pub fn planned_design_rows(design: &PlannedDesign) -> Vec<(String, String)> {
    let mut rows = vec![(
        "VM".to_string(),
        format!(
            "{}, {} vCPU, {} GiB",
            design.vm,
            design.vm_vcpu,
            group_thousands(design.vm_memory_gib.get())
        ),
    )];
    for volume in &design.volumes {
        let mut parts = vec![format!(
            "{} x {} ({} GiB each)",
            volume.disk_count,
            volume.disk_sku,
            group_thousands(volume.disk_size_gib.get())
        )];
        if let (Some(iops), Some(mb_s)) =
            (volume.provisioned_iops, volume.provisioned_throughput_mb_s)
        {
            parts.push(format!(
                "provisioned {} IOPS / {} MB/s",
                group_thousands(iops.get()),
                group_thousands(mb_s.get())
            ));
        }
        parts.push(format!("caching {}", volume.caching));
        if let Some(stripe) = volume.stripe_size_bytes.filter(|_| volume.disk_count > 1) {
            parts.push(format!("stripe {} KiB", stripe.as_u64() / 1024));
        }
        parts.push(format!("{} outstanding IOs", volume.queue_depth_total));
        rows.push((volume.label.clone(), parts.join(", ")));
    }
    rows
}

/// A predicted design's rows (what `predict` and `compare --design` know).
pub fn predicted_design_rows(prediction: &Prediction) -> Vec<(String, String)> {
    let mut rows = vec![("VM".to_string(), prediction.vm.clone())];
    for volume in &prediction.volumes {
        let mut parts = vec![
            format!("{} x {}", volume.disk_count, volume.disk_sku),
            format!("caching {}", volume.caching),
        ];
        if let Some(stripe) = volume.stripe_size_bytes.filter(|_| volume.disk_count > 1) {
            parts.push(format!("stripe {} KiB", stripe.as_u64() / 1024));
        }
        parts.push(format!("{} outstanding IOs", volume.queue.outstanding_ios));
        rows.push((volume.label.clone(), parts.join(", ")));
    }
    rows
}

/// Where a design's prices come from, in words: the VM table's price basis, date and source.
pub fn price_basis<T: Borrow<TableInfo>>(design: &PlannedDesign, tables: &[T]) -> String {
    table_price_basis(&design.vm_table, tables)
}

/// The price basis of catalog table `table_id` in words: region, way of paying, OS, currency,
/// date and source.
pub fn table_price_basis<T: Borrow<TableInfo>>(table_id: &str, tables: &[T]) -> String {
    let Some(table) = tables.iter().map(Borrow::borrow).find(|t| t.id == table_id) else {
        return format!("prices of catalog table {table_id}");
    };
    let basis = table
        .price_basis
        .clone()
        .unwrap_or_else(|| "USD list prices".to_string());
    let date = table.price_date.as_deref().unwrap_or(&table.date);
    let source = table.price_source.as_deref().unwrap_or(&table.source);
    // The source's first clause names it; the rest (paths, commits) is in `iofit catalog
    // tables`.
    let source = source
        .split([';', '(', ','])
        .next()
        .unwrap_or(source)
        .split(" saved in ")
        .next()
        .unwrap_or(source)
        .trim();
    format!(
        "{basis}; prices of {date}, {source}; catalog table {}",
        table.id
    )
}

/// A design's cost split with its price basis.
pub fn planned_cost<T: Borrow<TableInfo>>(design: &PlannedDesign, tables: &[T]) -> CostSplit {
    CostSplit {
        vm_usd_month: design.vm_price_usd_month,
        disks_usd_month: design.disks_price_usd_month,
        operations_usd_month: design.operations_usd_month,
        total_usd_month: design.total_usd_month,
        complete: design.cost_complete,
        basis: price_basis(design, tables),
        currency: currency_of(design, tables),
    }
}

/// The currency of a design's VM price table (USD when the table names none).
fn currency_of<T: Borrow<TableInfo>>(design: &PlannedDesign, tables: &[T]) -> String {
    tables
        .iter()
        .map(Borrow::borrow)
        .find(|t| t.id == design.vm_table)
        .map(|t| t.currency().to_string())
        .unwrap_or_else(|| iofit_model::catalog::DEFAULT_CURRENCY.to_string())
}

/// The verdict of every comparison: PASS when each volume passed, else which metrics failed.
pub fn verdict_of(comparisons: &[Comparison]) -> Option<SummaryVerdict> {
    if comparisons.is_empty() {
        return None;
    }
    let failed: Vec<String> = comparisons
        .iter()
        .filter(|c| !c.passed)
        .map(|c| {
            let metrics: Vec<&str> = c.failed_metrics().iter().map(|m| m.label()).collect();
            format!("{}: {}", c.volume, metrics.join(", "))
        })
        .collect();
    Some(if failed.is_empty() {
        SummaryVerdict {
            pass: true,
            words: format!("every requirement met on {} volume(s)", comparisons.len()),
            badge: None,
        }
    } else {
        SummaryVerdict {
            pass: false,
            words: format!("missed {}", failed.join("; ")),
            badge: None,
        }
    })
}

impl CostSplit {
    /// An amount in this split's currency.
    fn money(&self, value: Option<f64>) -> String {
        let currency = if self.currency.is_empty() {
            iofit_model::catalog::DEFAULT_CURRENCY
        } else {
            &self.currency
        };
        crate::plan_text::money_in(value, currency)
    }

    /// "$651.09 a month".
    pub fn total_text(&self) -> String {
        let money = |value: Option<f64>| self.money(value);
        match (self.total_usd_month, self.complete) {
            (Some(total), true) => format!("{} a month", money(Some(total))),
            (Some(total), false) => format!("{} a month + disk operations", money(Some(total))),
            (None, _) => match self.vm_usd_month {
                Some(vm) => format!("{} a month for the VM; disks not priced", money(Some(vm))),
                None => "price not sourced".into(),
            },
        }
    }

    /// "VM $224.84 + disks $426.25".
    pub fn split_text(&self) -> String {
        let money = |value: Option<f64>| self.money(value);
        let mut parts = vec![
            format!("VM {}", money(self.vm_usd_month)),
            format!("disks {}", money(self.disks_usd_month)),
        ];
        if let Some(ops) = self.operations_usd_month.filter(|ops| *ops > 0.0) {
            parts.push(format!("disk operations {}", money(Some(ops))));
        }
        parts.join(" + ")
    }
}

impl Summary {
    /// The card of a plan: design #1, its cost, its binding limit, and the next steps.
    pub fn for_plan<T: Borrow<TableInfo>>(plan: &iofit_planner::Plan, tables: &[T]) -> Summary {
        let Some(top) = plan.designs.first() else {
            return Summary {
                verdict: Some(SummaryVerdict {
                    pass: false,
                    words: "no design meets the requirements".into(),
                    badge: None,
                }),
                next: vec![plan
                    .impossible
                    .first()
                    .map(ToString::to_string)
                    .unwrap_or_else(|| "relax a requirement or add catalog rows".into())],
                ..Default::default()
            };
        };
        Summary {
            design: planned_design_rows(top),
            cost: Some(planned_cost(top, tables)),
            binding: binding_line(&top.prediction),
            next: vec![
                format!(
                    "Build {} as above (design #1 of {}).",
                    top.vm,
                    plan.designs.len()
                ),
                "Run the planned workload on it: iofit run JOBFILE --output-format=json --output \
                 results.json."
                    .into(),
                "Judge the run: iofit compare results.json --requirements req.toml.".into(),
            ],
            ..Default::default()
        }
    }
}

/// Why a cached design has two answers: shown beside the cold/warm toggle.
pub const CACHE_STORY: &str = "Cold cache: every read reaches the disks, as right after a \
     restart or when the working set outgrows the host cache; the plan sizes for this. Warm \
     cache: the host cache serves the reads it holds, so the disks see fewer of them and a VM \
     cache limit may bind first.";

impl Summary {
    /// The card as HTML: a grid of design, cost, binding limit and verdict, then next steps.
    pub fn render_html(&self, out: &mut String) {
        use crate::markup::escape;
        use std::fmt::Write as _;
        out.push_str("<section class=\"answer\" id=\"answer\">\n<h2>The answer</h2>\n<div class=\"answer-grid\">\n");
        if !self.design.is_empty() {
            out.push_str("<div class=\"cell\"><h3>Design</h3><dl>");
            for (label, text) in &self.design {
                let _ = write!(out, "<dt>{}</dt><dd>{}</dd>", escape(label), escape(text));
            }
            out.push_str("</dl></div>\n");
        }
        if let Some(cost) = &self.cost {
            let _ = writeln!(
                out,
                "<div class=\"cell\"><h3>Monthly cost</h3><p class=\"big\">{}</p><p>{}</p>\
                 <p class=\"note\">{}</p></div>",
                escape(&cost.total_text()),
                escape(&cost.split_text()),
                escape(&cost.basis)
            );
        }
        if let Some(binding) = &self.binding {
            out.push_str("<div class=\"cell\"><h3>Binding limit</h3>");
            match &self.binding_warm {
                None => binding_html(out, binding),
                Some(warm) => {
                    out.push_str(
                        "<div class=\"cache-toggle\">\
                         <input type=\"radio\" name=\"cache\" id=\"cache-cold\" checked>\
                         <label for=\"cache-cold\">cold cache</label>\
                         <input type=\"radio\" name=\"cache\" id=\"cache-warm\">\
                         <label for=\"cache-warm\">warm cache</label>\
                         <div class=\"when-cold\">",
                    );
                    binding_html(out, binding);
                    out.push_str("</div><div class=\"when-warm\">");
                    binding_html(out, warm);
                    let _ = write!(
                        out,
                        "</div><details class=\"note\"><summary>cold or warm?</summary>{}\
                         </details></div>",
                        escape(CACHE_STORY)
                    );
                }
            }
            out.push_str("</div>\n");
        }
        if let Some(verdict) = &self.verdict {
            let (class, word) = if verdict.pass {
                ("pass", "PASS")
            } else {
                ("fail", "FAIL")
            };
            let word = verdict.badge.as_deref().unwrap_or(word);
            let _ = writeln!(
                out,
                "<div class=\"cell\"><h3>Verdict</h3><div class=\"verdict {class}\">{word}</div>\
                 <p>{}</p></div>",
                escape(&verdict.words)
            );
        }
        out.push_str("</div>\n");
        if !self.next.is_empty() {
            out.push_str("<h3>Next</h3><ol class=\"next\">");
            for step in &self.next {
                let _ = write!(out, "<li>{}</li>", escape(step));
            }
            out.push_str("</ol>\n");
        }
        out.push_str("</section>\n");
    }

    /// The card as Markdown: the same facts as a short list.
    pub fn render_markdown(&self) -> String {
        let mut out = String::from("## The answer\n\n");
        for (label, text) in &self.design {
            out.push_str(&format!("- **{label}**: {text}\n"));
        }
        if let Some(cost) = &self.cost {
            out.push_str(&format!(
                "- **Monthly cost**: {} ({}); {}\n",
                cost.total_text(),
                cost.split_text(),
                cost.basis
            ));
        }
        if let Some(binding) = &self.binding {
            out.push_str(&format!(
                "- **Binding limit**: {} ({})\n",
                binding.name, binding.detail
            ));
        }
        if let Some(warm) = &self.binding_warm {
            out.push_str(&format!(
                "- **Binding limit, warm cache**: {} ({})\n",
                warm.name, warm.detail
            ));
        }
        if let Some(verdict) = &self.verdict {
            out.push_str(&format!(
                "- **Verdict**: {} ({})\n",
                verdict
                    .badge
                    .as_deref()
                    .unwrap_or(if verdict.pass { "PASS" } else { "FAIL" }),
                verdict.words
            ));
        }
        for (index, step) in self.next.iter().enumerate() {
            out.push_str(&format!("{}. {step}\n", index + 1));
        }
        out.push('\n');
        out
    }
}

fn binding_html(out: &mut String, binding: &BindingLine) {
    use crate::markup::escape;
    use std::fmt::Write as _;
    let _ = write!(
        out,
        "<p class=\"big binding-name\">{}</p><p>{}</p>",
        escape(&binding.name),
        escape(&binding.detail)
    );
}

impl Summary {
    /// The card of a prediction: the design as given, its binding limit, and whether it meets
    /// the targets (a prediction, not a measurement).
    pub fn for_prediction(prediction: &Prediction) -> Summary {
        let verdict = if !prediction.violations.is_empty() {
            Some(SummaryVerdict {
                pass: false,
                words: format!(
                    "cannot be built: {}",
                    prediction.violation_sentences().join("; ")
                ),
                badge: None,
            })
        } else {
            prediction.meets_requirements.map(|meets| SummaryVerdict {
                pass: meets,
                badge: Some(
                    if meets {
                        "PREDICTED PASS"
                    } else {
                        "PREDICTED FAIL"
                    }
                    .into(),
                ),
                words: if meets {
                    "predicted to meet every target (a prediction: run it to know)".into()
                } else {
                    let missed: Vec<&str> = prediction
                        .volumes
                        .iter()
                        .filter(|v| v.meets_target == Some(false))
                        .map(|v| v.label.as_str())
                        .collect();
                    format!("predicted to miss the target of {}", missed.join(", "))
                },
            })
        };
        Summary {
            design: predicted_design_rows(prediction),
            binding: binding_line(prediction),
            verdict,
            next: vec![
                "Price it and cheaper alternatives: iofit plan --requirements req.toml --report \
                 plan.html."
                    .into(),
                "Build it, run the workload (iofit run) and judge the run (iofit compare \
                 results.json --requirements req.toml --vm VM --disk ...)."
                    .into(),
            ],
            ..Default::default()
        }
    }

    /// The card of a comparison: the verdict first, the design under test and, when the
    /// design was named, its predicted binding limit.
    pub fn for_comparison(comparison: &Comparison, prediction: Option<&Prediction>) -> Summary {
        let mut design = Vec::new();
        if let Some(prediction) = prediction {
            design = predicted_design_rows(prediction);
        } else if let Some(words) = &comparison.design {
            design.push(("design".to_string(), words.clone()));
        }
        design.push((
            "measured".to_string(),
            format!(
                "{} against volume {} of {}",
                file_name(&comparison.results_source),
                comparison.volume,
                file_name(&comparison.requirements_source)
            ),
        ));
        let next = if comparison.passed {
            vec![
                "The design meets the requirements as measured: keep the results with the \
                  report."
                    .to_string(),
            ]
        } else {
            let mut next: Vec<String> = comparison
                .advice
                .iter()
                .take(3)
                .map(|a| a.message.clone())
                .collect();
            if next.is_empty() {
                next.push(
                    "Re-plan with the measured figures: iofit plan --requirements req.toml.".into(),
                );
            }
            next
        };
        Summary {
            design,
            binding: prediction.and_then(binding_line),
            verdict: verdict_of(std::slice::from_ref(comparison)),
            next,
            ..Default::default()
        }
    }
}

/// The last part of a path, for the card (the whole path is in the details below).
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}
