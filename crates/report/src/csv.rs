//! (Being built.)
