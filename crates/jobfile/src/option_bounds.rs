//! The bounds of a numeric job option (smallest and largest value, in a unit), as the option
//! table states them and the functions applying the options check them.

/// The unit of a numeric option's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A plain count (queue entries, clones, loops, files).
    Count,
    Bytes,
    Percent,
}

/// The smallest and largest value an option accepts, in `unit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub min: u64,
    pub max: u64,
    pub unit: Unit,
    /// What the number counts, for messages ("clones" in "20000 clones is above...").
    pub noun: &'static str,
}
