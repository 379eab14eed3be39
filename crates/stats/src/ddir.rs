//! fio's IO directions, apart from the series and results that index by them (both use it).

/// fio's IO directions (`enum fio_ddir`): the index of a direction in per-direction arrays
/// and the `DDIR` column of fio's logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ddir {
    Read = 0,
    Write = 1,
    Trim = 2,
}

impl Ddir {
    pub const ALL: [Ddir; 3] = [Ddir::Read, Ddir::Write, Ddir::Trim];

    /// 0, 1 or 2, as fio numbers them.
    pub fn index(self) -> usize {
        self as usize
    }
}
