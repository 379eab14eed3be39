//! iofit-stats: see ARCHITECTURE.md. (Being built.)
pub mod result;
pub use result::*;
