//! iofit-blockdata: what goes into a block and how it is checked.
//!
//! - [`verify`]: verified units with a header (magic, offset, length, generation, seed, file)
//!   and a checksum ([`checksum`]: crc32c in hardware, md5, sha1, sha256, sha512, xxhash),
//!   filled and checked by [`verify::fill_unit`] / [`verify::check_unit`];
//! - [`state`]: the generation of every unit (how often it was written), saved and loaded for
//!   fio's `verify_state_save`/`verify_state_load`;
//! - [`verifier`]: the two above for one clone's IOs, as the engine calls them;
//! - [`content`]: buffer content when not verifying (compressible, deduplicable, patterns);
//! - [`inject`]: the fault-injection harness tests use to prove every corruption is caught.
//!
//! It depends only on `model` (the job's `DataSpec`), so the engine, the tests and the bench
//! share one definition of what a block holds.
//!
//! ```
//! use iofit_blockdata::verify::{check_unit, fill_unit, Layout, MismatchKind, Stamp};
//! use iofit_model::data::VerifyMode;
//! use iofit_model::units::Bytes;
//!
//! let layout = Layout::new(VerifyMode::Crc32c, Bytes::kib(4), 0).unwrap();
//! let stamp = Stamp { file: 0, offset: 8192, generation: 2, seed: 1 };
//! let mut block = vec![0u8; 4096];
//! fill_unit(&layout, &mut block, &stamp, &[]);
//! assert!(check_unit(&layout, &block, &stamp, &[], true).is_ok());
//! // The block written before it (generation 1) is a lost write:
//! let older = Stamp { generation: 1, ..stamp };
//! fill_unit(&layout, &mut block, &older, &[]);
//! let bad = check_unit(&layout, &block, &stamp, &[], true).unwrap_err();
//! assert_eq!(bad.kind, MismatchKind::Stale);
//! ```

pub mod checksum;
pub mod content;
pub mod inject;
pub mod random;
pub mod state;
pub mod verifier;
pub mod verify;
