//! `iofit catalog`: lists what the catalog knows (VM sizes, disks, NetApp Files service levels,
//! and the tables they come from), each listing naming its tables and their sources
//! ([`iofit_report::catalog_listing`]), and `catalog import`/`fetch`
//! ([`iofit_procedure::catalog_file`]).

use iofit_catalog::EDITIONS;
use iofit_procedure::catalog_file::{write_catalog_file, CatalogFileFlags};
use iofit_procedure::catalog_list::{check_import_flags, list_catalog, unix_seconds_now};
use iofit_report::catalog_listing::{ListingKind, ListingQuery};
use std::path::PathBuf;
use std::process::ExitCode;

/// What to list.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// VM sizes and their storage limits.
    Vms,
    /// Fixed-size disks (P, E, S tiers) and provisioned disk types (Premium SSD v2, Ultra).
    Disks,
    /// Azure NetApp Files service levels.
    Netapp,
    /// The tables themselves: id, edition, source and date.
    Tables,
    /// Write a catalog file from `az vm list-skus` output and Retail Prices API pages
    /// (--skus, --prices, --region, -o).
    Import,
    /// Write a catalog file of one region's prices read from the Azure Retail Prices API
    /// itself (--region, -o; VM pay-as-you-go Linux and Windows, 1- and 3-year reservations,
    /// disk tiers).
    Fetch,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// What to list.
    #[arg(value_enum)]
    pub listing: Listing,
    /// Catalog edition: current (Azure's current pages) or seed-2016 (the seed's dated tables). [default: current; `tables` lists every edition unless this is given].
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(EDITIONS))]
    pub edition: Option<String>,
    /// Show only rows whose name, family, kind or table contains this text (any case).
    #[arg(long)]
    pub filter: Option<String>,
    /// Only VM sizes with at least this many vCPUs.
    #[arg(long)]
    pub min_vcpu: Option<u32>,
    /// Extra catalog file(s) that add or override rows. Repeatable.
    #[arg(long = "catalog", value_name = "FILE")]
    pub catalog_files: Vec<PathBuf>,
    /// Print the result as JSON on stdout. Instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub import: ImportArgs,
}

/// The flags of `iofit catalog import`.
#[derive(clap::Args, Debug, Default)]
pub struct ImportArgs {
    /// `az vm list-skus --output json` output (VM sizes; repeat for `--resource-type disks`).
    #[arg(long, value_name = "FILE")]
    pub skus: Vec<PathBuf>,
    /// `aws ec2 describe-instance-types --output json` output: writes an AWS catalog file
    /// (for `plan`/`predict --cloud aws --catalog FILE`) instead of an Azure one; repeatable.
    #[arg(long = "aws-instance-types", value_name = "FILE")]
    pub aws_instance_types: Vec<PathBuf>,
    /// AWS's EC2 offer file of one region as saved from the Price List Bulk API
    /// (offers/v1.0/aws/AmazonEC2/current/REGION/index.json): writes an AWS price file of
    /// that region (--region, -o) for `plan`/`predict --cloud aws --region R --catalog FILE`.
    #[arg(long = "aws-prices", value_name = "FILE")]
    pub aws_prices: Option<PathBuf>,
    /// Pages of Google's Cloud Billing Catalog API as saved (GET
    /// /v1/services/6F81-5844-456A/skus, Compute Engine): writes a Google Cloud price file of
    /// --region (-o) for `plan`/`predict --cloud gcp --region R --catalog FILE`; repeatable, in
    /// page order.
    #[arg(long = "gcp-prices", value_name = "FILE")]
    pub gcp_prices: Vec<PathBuf>,
    /// `catalog fetch --cloud gcp`: a file whose first line is the Cloud Billing API key
    /// [default: the IOFIT_GCP_API_KEY environment variable]. The key is never printed.
    #[arg(long = "api-key-file", value_name = "FILE")]
    pub api_key_file: Option<PathBuf>,
    /// The cloud: azure, aws, gcp, or all (plan only: the cheapest design of each side by
    /// side). `catalog fetch` reads azure's prices (the Retail Prices API), aws's (the Price
    /// List Bulk API's EC2 offer file of --region) or gcp's (the Cloud Billing Catalog API's
    /// Compute Engine SKUs of --region) [default: azure].
    #[arg(long)]
    pub cloud: Option<iofit_procedure::plan_clouds::CloudChoice>,
    /// `gcloud compute machine-types list --format=json` output: writes a Google Cloud catalog
    /// file (for `plan`/`predict --cloud gcp --catalog FILE`) instead of an Azure one; repeatable.
    #[arg(long = "gcp-machine-types", value_name = "FILE")]
    pub gcp_machine_types: Vec<PathBuf>,
    /// A page of the Azure Retail Prices API as saved (`{"Items": [...]}`); repeatable.
    #[arg(long, value_name = "FILE")]
    pub prices: Vec<PathBuf>,
    /// The Azure region of the prices (eastus, westeurope, japaneast...). The region to import.
    #[arg(long)]
    pub region: Option<String>,
    /// Write the result to FILE. The catalog file.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The written table's id [default: import-REGION-DATE].
    #[arg(long = "table-id")]
    pub table_id: Option<String>,
    /// Allow replacing files iofit did not create. FILE when it exists.
    #[arg(long = "allow-overwrite")]
    pub allow_overwrite: bool,
    /// `catalog fetch`: the currency of the prices (ISO 4217, the API's currencyCode, e.g. EUR)
    /// [default: USD]; a plan adds one currency and never converts.
    #[arg(long)]
    pub currency: Option<String>,
    /// `catalog fetch`: the Retail Prices API's address [default: the public API].
    #[arg(long, value_name = "URL")]
    pub api: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let flags = file_flags(args.import, args.listing == Listing::Fetch);
    let import_or_fetch = matches!(args.listing, Listing::Import | Listing::Fetch);
    check_import_flags(flags.any_given(), import_or_fetch)?;
    let kind = match args.listing {
        Listing::Vms => ListingKind::Vms,
        Listing::Disks => ListingKind::Disks,
        Listing::Netapp => ListingKind::Netapp,
        Listing::Tables => ListingKind::Tables,
        Listing::Import | Listing::Fetch => {
            // The catalog file written whole, and what it holds.
            crate::cmd::emit(&write_catalog_file(flags, unix_seconds_now())?)?;
            return Ok(ExitCode::SUCCESS);
        }
    };
    let query = ListingQuery {
        kind,
        edition: args.edition,
        filter: args.filter,
        min_vcpu: args.min_vcpu,
        json: args.json,
    };
    print!("{}", list_catalog(&args.catalog_files, &query)?);
    Ok(ExitCode::SUCCESS)
}

/// The flags of `iofit catalog import` and `catalog fetch` as the procedure takes them.
fn file_flags(args: ImportArgs, fetch: bool) -> CatalogFileFlags {
    CatalogFileFlags {
        fetch,
        skus: args.skus,
        aws_instance_types: args.aws_instance_types,
        gcp_machine_types: args.gcp_machine_types,
        aws_prices: args.aws_prices,
        gcp_prices: args.gcp_prices,
        api_key_file: args.api_key_file,
        cloud: args.cloud,
        prices: args.prices,
        region: args.region,
        output: args.output,
        table_id: args.table_id,
        allow_overwrite: args.allow_overwrite,
        currency: args.currency,
        api: args.api,
    }
}
