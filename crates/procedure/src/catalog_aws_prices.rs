//! One AWS region's on-demand prices as an AWS catalog file, from AWS's Price List: `catalog
//! fetch --cloud aws --region R` reads the region's EC2 offer file from the Price List Bulk
//! API (`--api` points at another server, as a test does), `catalog import --aws-prices FILE
//! --region R` a copy saved earlier. Both stream the file through
//! [`iofit_catalog::clouds::aws_prices`] and write the catalog file whole, checked to load,
//! for `plan`/`predict --cloud aws --region R --catalog FILE`.

use crate::ProcedureError;
use iofit_catalog::clouds::aws_prices::{import_offer, AwsPriceImport};
use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

type Result<T> = std::result::Result<T, ProcedureError>;

/// The Price List Bulk API's host (AWS, "Fetching price list files manually").
pub const PRICE_LIST_API: &str = "https://pricing.us-east-1.amazonaws.com";

/// A region's EC2 offer file was 3 to 6 GB in 2024-2026; the stream keeps only the kept rows,
/// so the cap only stops a server (or file) that never ends.
const OFFER_FILE_BYTES_MAX: u64 = 64 << 30;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// Where the offer file comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum OfferSource {
    /// A saved copy of the region's offer file.
    File(PathBuf),
    /// The Price List Bulk API at this address ([`PRICE_LIST_API`]).
    Api(String),
}

/// What `catalog fetch --cloud aws` and `catalog import --aws-prices` ask for.
#[derive(Clone, Debug)]
pub struct AwsPricesRequest {
    pub source: OfferSource,
    pub region: Option<String>,
    pub output: Option<PathBuf>,
    pub table_id: Option<String>,
    pub allow_overwrite: bool,
    /// The table's date, YYYY-MM-DD.
    pub date: String,
}

/// The file written and what it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct AwsPricesOutcome {
    pub output: PathBuf,
    pub imported: AwsPriceImport,
}

impl AwsPricesOutcome {
    /// What the command prints.
    pub fn summary(&self) -> String {
        let i = &self.imported;
        format!(
            "wrote {}: AWS {} on-demand prices: {} instance price row(s) (Linux, Windows), volume types {} (offer file version {}, published {})\n",
            self.output.display(),
            i.region,
            i.instance_rows,
            if i.volume_types.is_empty() {
                "none".to_string()
            } else {
                i.volume_types.join(", ")
            },
            i.version,
            i.publication_date
        )
    }
}

/// The flags of `catalog import`/`catalog fetch` that choose AWS prices, as given.
#[derive(Clone, Debug, Default)]
pub struct AwsPriceFlags {
    /// `catalog fetch` (else `catalog import`).
    pub fetch: bool,
    /// `--cloud`.
    pub cloud: Option<crate::plan_clouds::CloudChoice>,
    pub aws_prices: Option<PathBuf>,
    pub api: Option<String>,
    pub region: Option<String>,
    pub output: Option<PathBuf>,
    pub table_id: Option<String>,
    pub allow_overwrite: bool,
    /// `--skus` or `--prices` (Azure's inputs) given too.
    pub azure_inputs: bool,
}

/// Imports or fetches AWS prices when the flags ask for them (`None`: they ask for Azure's).
pub fn aws_prices_if_asked(flags: &AwsPriceFlags, date: &str) -> Result<Option<AwsPricesOutcome>> {
    use crate::plan_clouds::CloudChoice;
    use iofit_catalog::clouds::Cloud;
    check_price_source_flags(
        flags.fetch,
        flags.cloud.is_some(),
        flags.aws_prices.is_some(),
    )?;
    let aws = match flags.cloud {
        None | Some(CloudChoice::One(Cloud::Azure)) => false,
        Some(CloudChoice::One(Cloud::Aws)) => true,
        Some(_) => return Err(bad(
            "--cloud: `catalog fetch` reads azure's, aws's or gcp's prices, one cloud at a time",
        )),
    };
    let source = match (&flags.aws_prices, flags.fetch && aws) {
        (Some(file), _) => OfferSource::File(file.clone()),
        (None, true) => {
            OfferSource::Api(flags.api.clone().unwrap_or_else(|| PRICE_LIST_API.into()))
        }
        (None, false) => return Ok(None),
    };
    if flags.azure_inputs {
        return Err(bad(
            "--skus and --prices are Azure's inputs; AWS prices come from the offer file alone",
        ));
    }
    import_aws_prices(&AwsPricesRequest {
        source,
        region: flags.region.clone(),
        output: flags.output.clone(),
        table_id: flags.table_id.clone(),
        allow_overwrite: flags.allow_overwrite,
        date: date.to_string(),
    })
    .map(Some)
}

/// `--cloud` belongs to `catalog fetch` and `--aws-prices FILE` to `catalog import`.
fn check_price_source_flags(fetch: bool, cloud: bool, aws_prices: bool) -> Result<()> {
    if fetch && aws_prices {
        return Err(bad(
            "--aws-prices FILE belongs to `iofit catalog import` (a saved offer file); `catalog fetch --cloud aws` reads the Price List itself",
        ));
    }
    if !fetch && cloud {
        return Err(bad(
            "--cloud belongs to `iofit catalog fetch`; `catalog import` takes --aws-prices FILE for AWS's offer file",
        ));
    }
    Ok(())
}

fn open_source(source: &OfferSource, region: &str) -> Result<(String, Box<dyn Read>)> {
    match source {
        OfferSource::File(path) => {
            let file =
                iofit_safefs::input::open_input(path, OFFER_FILE_BYTES_MAX, "AWS offer file")?;
            Ok((path.display().to_string(), Box::new(file)))
        }
        OfferSource::Api(base) => {
            let url = format!(
                "{}/offers/v1.0/aws/AmazonEC2/current/{region}/index.json",
                base.trim_end_matches('/')
            );
            let agent = ureq::AgentBuilder::new()
                .timeout_connect(Duration::from_secs(30))
                .timeout_read(Duration::from_secs(120))
                .build();
            match agent.get(&url).call() {
                Ok(response) => Ok((
                    url,
                    Box::new(response.into_reader().take(OFFER_FILE_BYTES_MAX)),
                )),
                Err(ureq::Error::Status(code, _)) => Err(bad(format!(
                    "{url}: HTTP {code}; check --region (AWS's region code) and --api"
                ))),
                Err(ureq::Error::Transport(e)) => Err(bad(format!(
                    "{url}: cannot connect ({}); check the network or give a saved copy with `catalog import --aws-prices FILE`",
                    e.kind()
                ))),
            }
        }
    }
}

/// Reads the offer file, builds the catalog file and writes it whole; nothing is written when
/// any part fails.
pub fn import_aws_prices(request: &AwsPricesRequest) -> Result<AwsPricesOutcome> {
    let (Some(region), Some(output)) = (&request.region, &request.output) else {
        return Err(bad(
            "give --region REGION and -o FILE, e.g. `iofit catalog fetch --cloud aws --region eu-central-1 -o aws-eu-central-1.toml`",
        ));
    };
    crate::plan_clouds::check_aws_region(region)?;
    if output.exists() && !request.allow_overwrite {
        return Err(bad(format!(
            "-o {}: exists; choose another name or add --allow-overwrite",
            output.display()
        )));
    }
    let (name, reader) = open_source(&request.source, region)?;
    let imported = import_offer(
        &name,
        reader,
        region,
        &request.date,
        request.table_id.as_deref(),
    )
    .map_err(|e| bad(e.to_string()))?;
    iofit_safefs::atomic::write_atomic(output, imported.toml.as_bytes())?;
    Ok(AwsPricesOutcome {
        output: output.clone(),
        imported,
    })
}
