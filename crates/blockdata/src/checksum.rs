//! The checksums of fio's `verify=` modes. crc32c uses the CPU's CRC instruction (SSE 4.2 or
//! ARMv8) through the `crc32c` crate, so `crc32c` and `crc32c-intel` are one mode.

use iofit_model::data::VerifyMode;

/// A checksum value, up to 64 bytes (sha512).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Sum {
    bytes: [u8; 64],
    len: u8,
}

impl Sum {
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
    fn from(slice: &[u8]) -> Sum {
        let mut bytes = [0u8; 64];
        bytes[..slice.len()].copy_from_slice(slice);
        Sum {
            bytes,
            len: slice.len() as u8,
        }
    }
    /// Hex, as an error report shows it.
    pub fn hex(&self) -> String {
        self.as_bytes().iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Debug for Sum {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.hex())
    }
}

/// Bytes of the checksum a mode stores in the header (0: none).
pub fn sum_len(mode: VerifyMode) -> usize {
    match mode {
        VerifyMode::Crc32c => 4,
        VerifyMode::Md5 => 16,
        VerifyMode::Sha1 => 20,
        VerifyMode::Sha256 => 32,
        VerifyMode::Sha512 => 64,
        VerifyMode::Xxhash => 8,
        _ => 0,
    }
}

/// The checksum of `parts` (one after another) under `mode`; empty for modes without one.
pub fn sum(mode: VerifyMode, parts: &[&[u8]]) -> Sum {
    fn hash<D: md5::Digest>(parts: &[&[u8]]) -> Sum {
        let mut d = D::new();
        for p in parts {
            d.update(p);
        }
        Sum::from(&d.finalize())
    }
    match mode {
        VerifyMode::Crc32c => {
            let crc = parts.iter().fold(0u32, |c, p| crc32c::crc32c_append(c, p));
            Sum::from(&crc.to_le_bytes())
        }
        VerifyMode::Md5 => hash::<md5::Md5>(parts),
        VerifyMode::Sha1 => hash::<sha1::Sha1>(parts),
        VerifyMode::Sha256 => hash::<sha2::Sha256>(parts),
        VerifyMode::Sha512 => hash::<sha2::Sha512>(parts),
        VerifyMode::Xxhash => {
            let mut h = xxhash_rust::xxh3::Xxh3::new();
            for p in parts {
                h.update(p);
            }
            Sum::from(&h.digest().to_le_bytes())
        }
        _ => Sum::from(&[]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // RFC 3720 B.4: crc32c of 32 zero bytes is 0x8a9136aa.
        assert_eq!(
            sum(VerifyMode::Crc32c, &[&[0u8; 32]]).as_bytes(),
            0x8a91_36aau32.to_le_bytes()
        );
        assert_eq!(
            sum(VerifyMode::Md5, &[b"ab", b"c"]).hex(),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            sum(VerifyMode::Sha1, &[b"abc"]).hex(),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        for mode in [
            VerifyMode::Sha256,
            VerifyMode::Sha512,
            VerifyMode::Xxhash,
            VerifyMode::Crc32c,
        ] {
            assert_eq!(sum(mode, &[b"abc"]).as_bytes().len(), sum_len(mode));
            assert_eq!(sum(mode, &[b"a", b"bc"]), sum(mode, &[b"abc"]));
            assert_ne!(sum(mode, &[b"abc"]), sum(mode, &[b"abd"]));
        }
    }
}
