//! Shared test support.
pub mod netns;
