//! iofit-catalog: see ARCHITECTURE.md. (Being built.)
pub mod types;
pub use types::*;
