//! One Google Cloud region's on-demand prices as a Google Cloud catalog file, from Google's
//! Cloud Billing Catalog API: `catalog fetch --cloud gcp --region R` lists Compute Engine's
//! public SKUs (`GET /v1/services/6F81-5844-456A/skus?key=KEY`, page after page by
//! `pageToken`; `--api` points at another server, as a test does), `catalog import
//! --gcp-prices FILE` reads pages saved earlier. The rows are built by
//! [`iofit_catalog::clouds::gcp_prices`] and the file is written whole, checked to load, for
//! `plan`/`predict --cloud gcp --region R --catalog FILE`; nothing is written when any page fails.
//!
//! The API key is read from the environment variable [`API_KEY_ENV`] or from the first line of
//! `--api-key-file FILE`; it is sent in the query as Google documents, and never printed: every
//! message names the address without it.

use crate::ProcedureError;
use iofit_catalog::clouds::gcp::GcpCatalog;
use iofit_catalog::clouds::gcp_prices::{
    GcpPriceImport, GcpSkuCollector, COMPUTE_ENGINE_SERVICE_ID,
};
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

type Result<T> = std::result::Result<T, ProcedureError>;

/// The Cloud Billing API's host (Google, "Get Google Cloud pricing information").
pub const CLOUD_BILLING_API: &str = "https://cloudbilling.googleapis.com";

/// The environment variable `catalog fetch --cloud gcp` reads the API key from.
pub const API_KEY_ENV: &str = "IOFIT_GCP_API_KEY";

/// A page holds up to 5,000 SKUs (Google's how-to), a few MB; the cap stops a server that
/// never ends.
const PAGE_BYTES_MAX: u64 = 256 << 20;

/// Compute Engine had about 40,000 SKUs in 2026 (8 pages); more pages than this is a loop.
const PAGES_MAX: usize = 200;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// Where the pages come from.
#[derive(Clone, Debug, PartialEq)]
pub enum SkuSource {
    /// Pages saved from the API, in order.
    Files(Vec<PathBuf>),
    /// The API at this address ([`CLOUD_BILLING_API`]), with this key.
    Api { base: String, key: String },
}

/// What `catalog fetch --cloud gcp` and `catalog import --gcp-prices` ask for.
#[derive(Clone, Debug)]
pub struct GcpPricesRequest {
    pub source: SkuSource,
    pub region: Option<String>,
    pub output: Option<PathBuf>,
    pub table_id: Option<String>,
    pub allow_overwrite: bool,
    /// The table's date, YYYY-MM-DD.
    pub date: String,
}

/// The file written and what it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct GcpPricesOutcome {
    pub output: PathBuf,
    pub imported: GcpPriceImport,
    /// A saved page that names a next page nobody gave (the rows of later pages are missing).
    pub more_pages: bool,
}

impl GcpPricesOutcome {
    /// What the command prints.
    pub fn summary(&self) -> String {
        let i = &self.imported;
        let mut text = format!(
            "wrote {}: Google Cloud {} on-demand prices from {} Cloud Billing Catalog page(s): {} machine type price row(s), disk types {}\n",
            self.output.display(),
            i.region,
            i.pages,
            i.machine_rows,
            if i.disk_types.is_empty() {
                "none".to_string()
            } else {
                i.disk_types.join(", ")
            }
        );
        if !i.families_unpriced.is_empty() {
            text += &format!(
                "no core or RAM SKU of {} for families {}: the file prices none of their machine types (with --catalog, the built-in rows still do)\n",
                i.region,
                i.families_unpriced.join(", ")
            );
        }
        for left in &i.left_out {
            text += &format!("left out: {left}\n");
        }
        if self.more_pages {
            text += "the last page given names a next page (nextPageToken): SKUs on later pages are missing; save every page or use `catalog fetch --cloud gcp`\n";
        }
        text
    }
}

/// The API key: [`API_KEY_ENV`], else the first line of `key_file`.
pub fn api_key(key_file: Option<&std::path::Path>) -> Result<String> {
    if let Some(path) = key_file {
        let text = iofit_safefs::input::read_capped_string(path, 4096, "API key file")?;
        let key = text.lines().next().unwrap_or_default().trim().to_string();
        if key.is_empty() {
            return Err(bad(format!(
                "--api-key-file {}: empty; write the API key on its first line",
                path.display()
            )));
        }
        return Ok(key);
    }
    match std::env::var(API_KEY_ENV) {
        Ok(key) if !key.trim().is_empty() => Ok(key.trim().to_string()),
        _ => Err(bad(format!(
            "the Cloud Billing Catalog API needs an API key: set {API_KEY_ENV} or give --api-key-file FILE (Google: \"Get Google Cloud pricing information\", Before you begin)"
        ))),
    }
}

/// The address of one page, without the key (what messages show).
fn page_address(base: &str, token: Option<&str>) -> String {
    let mut url = format!(
        "{}/v1/services/{COMPUTE_ENGINE_SERVICE_ID}/skus?currencyCode=USD",
        base.trim_end_matches('/')
    );
    if let Some(token) = token {
        url += &format!("&pageToken={}", percent(token));
    }
    url
}

/// Percent-encodes a query value (tokens and keys are URL-safe base64 in practice).
fn percent(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Google's error message from a refused request's body, with the key taken out.
fn google_message(body: &str, key: &str) -> String {
    let message = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
        .unwrap_or_default();
    let message = message.replace(key, "<key>");
    if message.is_empty() {
        String::new()
    } else {
        format!(": {}", message.chars().take(300).collect::<String>())
    }
}

/// Reads every page from the API into `collector`.
fn fetch_pages(base: &str, key: &str, collector: &mut GcpSkuCollector) -> Result<()> {
    let agent = ureq::AgentBuilder::new()
        .timeout_connect(Duration::from_secs(30))
        .timeout_read(Duration::from_secs(120))
        .build();
    let mut token: Option<String> = None;
    for number in 1..=PAGES_MAX {
        let shown = page_address(base, token.as_deref());
        let url = format!("{shown}&key={}", percent(key));
        let body = match agent.get(&url).call() {
            Ok(response) => {
                let mut body = String::new();
                response
                    .into_reader()
                    .take(PAGE_BYTES_MAX)
                    .read_to_string(&mut body)
                    .map_err(|e| bad(format!("{shown}: page {number} cut short ({e}); nothing written")))?;
                body
            }
            Err(ureq::Error::Status(code, response)) => {
                let body = response.into_string().unwrap_or_default();
                let hint = match code {
                    400 | 401 | 403 => "; check the API key and that the Cloud Billing API is enabled for its project",
                    _ => "; check --api",
                };
                return Err(bad(format!(
                    "{shown}: HTTP {code}{}{hint}; nothing written",
                    google_message(&body, key)
                )));
            }
            Err(ureq::Error::Transport(e)) => {
                return Err(bad(format!(
                    "{shown}: cannot connect ({}); check the network or give saved pages with `catalog import --gcp-prices FILE`",
                    e.kind()
                )))
            }
        };
        let name = format!("{shown} (page {number})");
        let next = collector
            .add_page(&name, &body)
            .map_err(|e| bad(format!("{e}; nothing written")))?;
        match next {
            None => return Ok(()),
            Some(next) if token.as_deref() == Some(next.as_str()) => {
                return Err(bad(format!(
                    "{shown}: nextPageToken repeats the page's own token; nothing written"
                )))
            }
            Some(next) => token = Some(next),
        }
    }
    Err(bad(format!(
        "{}: more than {PAGES_MAX} pages; nothing written",
        page_address(base, None)
    )))
}

/// Reads the pages, builds the catalog file and writes it whole; nothing is written when any
/// part fails.
pub fn import_gcp_prices(request: &GcpPricesRequest) -> Result<GcpPricesOutcome> {
    let (Some(region), Some(output)) = (&request.region, &request.output) else {
        return Err(bad(
            "give --region REGION and -o FILE, e.g. `iofit catalog fetch --cloud gcp --region europe-west3 -o gcp-europe-west3.toml`",
        ));
    };
    if region.trim().is_empty()
        || !region
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        return Err(bad(format!(
            "--region {region}: not a Google Cloud region name (us-central1, europe-west3...)"
        )));
    }
    if output.exists() && !request.allow_overwrite {
        return Err(bad(format!(
            "-o {}: exists; choose another name or add --allow-overwrite",
            output.display()
        )));
    }
    let mut collector = GcpSkuCollector::new(region);
    let mut more_pages = false;
    match &request.source {
        SkuSource::Files(files) => {
            for path in files {
                let text = iofit_safefs::input::read_capped_string(
                    path,
                    PAGE_BYTES_MAX,
                    "Cloud Billing Catalog page",
                )?;
                more_pages = collector
                    .add_page(&path.display().to_string(), &text)
                    .map_err(|e| bad(e.to_string()))?
                    .is_some();
            }
        }
        SkuSource::Api { base, key } => fetch_pages(base, key, &mut collector)?,
    }
    let builtin = GcpCatalog::embedded().map_err(|e| bad(e.to_string()))?;
    let imported = collector
        .render(&builtin, &request.date, request.table_id.as_deref())
        .map_err(|e| bad(e.to_string()))?;
    if imported.machine_rows == 0 && imported.disk_types.is_empty() {
        return Err(bad(format!(
            "no Compute Engine on-demand SKU of {region} found in the response; check --region; nothing written"
        )));
    }
    iofit_safefs::atomic::write_atomic(output, imported.toml.as_bytes())?;
    Ok(GcpPricesOutcome {
        output: output.clone(),
        imported,
        more_pages,
    })
}
