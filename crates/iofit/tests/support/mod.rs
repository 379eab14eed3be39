//! Shared test support.
pub mod netns;
pub mod slurm;
