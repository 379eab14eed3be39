//! Catalogs of clouds other than Azure. Each cloud keeps its own rows and rules (AWS's instance
//! burst window, gp2 I/O credits, gp3 provisioning) instead of being forced into Azure's shape;
//! what they share is the catalog's discipline: every table names its source and date, and a
//! value nobody could source stays empty.

pub mod aws;
pub mod aws_import;
pub mod aws_prices;
pub mod gcp;
pub mod gcp_import;
pub mod gcp_prices;
pub mod gcp_provisioned;

/// The clouds `plan --cloud` and `predict --cloud` know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Cloud {
    Azure,
    Aws,
    Gcp,
}

impl Cloud {
    pub const ALL: [Cloud; 3] = [Cloud::Azure, Cloud::Aws, Cloud::Gcp];
    pub fn name(self) -> &'static str {
        match self {
            Cloud::Azure => "azure",
            Cloud::Aws => "aws",
            Cloud::Gcp => "gcp",
        }
    }
    /// How outputs name it.
    pub fn title(self) -> &'static str {
        match self {
            Cloud::Azure => "Azure",
            Cloud::Aws => "AWS",
            Cloud::Gcp => "Google Cloud",
        }
    }
}

impl std::str::FromStr for Cloud {
    type Err = crate::UnknownChoice;
    fn from_str(text: &str) -> Result<Self, crate::UnknownChoice> {
        Cloud::ALL
            .into_iter()
            .find(|cloud| cloud.name().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| crate::UnknownChoice {
                text: text.to_string(),
                what: "a cloud",
                choices: "azure, aws, gcp or all",
            })
    }
}
