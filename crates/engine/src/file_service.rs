//! Which of a clone's files the next IO goes to: fio's `file_service_type` (roundrobin,
//! sequential, random, each with `:N` IOs per choice, and zipf/pareto/normal over the file
//! numbers as fio draws them: over `nrfiles << 10` ranks in order, unhashed, shifted back).

use crate::distribution::BlockPicker;
use crate::random::SplitMix64;
use iofit_model::job::{FileService, FileServiceKind};

/// fio's FIO_FSERVICE_SHIFT: a skewed draw is over `nrfiles << 10` ranks.
const RANK_SHIFT: u32 = 10;

#[derive(Debug)]
enum Choice {
    RoundRobin,
    /// Bytes issued on the current file so far, and each file's length.
    Sequential {
        issued: u64,
        lengths: Vec<u64>,
    },
    Random,
    Skewed(BlockPicker),
}

/// Chooses the file of each IO.
#[derive(Debug)]
pub struct FileChooser {
    files: usize,
    choice: Choice,
    ios_per_choice: u32,
    /// IOs still to go to `current` before the next choice.
    left: u32,
    current: usize,
    /// The next file of the round robin.
    next: usize,
    rng: SplitMix64,
}

impl FileChooser {
    /// A chooser over files of `lengths` bytes. Errors say what is wrong with a skewed
    /// distribution's numbers.
    pub fn new(
        service: &FileService,
        lengths: &[u64],
        seed: u64,
    ) -> Result<FileChooser, crate::distribution::DistributionError> {
        let files = lengths.len().max(1);
        let choice = match &service.kind {
            FileServiceKind::RoundRobin => Choice::RoundRobin,
            FileServiceKind::Sequential => Choice::Sequential {
                issued: 0,
                lengths: lengths.to_vec(),
            },
            FileServiceKind::Random => Choice::Random,
            FileServiceKind::Skewed(distribution) => {
                let ranks = (files as u64) << RANK_SHIFT;
                match BlockPicker::new(distribution, ranks, 1, seed)? {
                    Some(picker) => Choice::Skewed(picker.without_hash()),
                    None => Choice::Random,
                }
            }
        };
        Ok(FileChooser {
            files,
            choice,
            ios_per_choice: service.ios_per_choice.max(1),
            left: 0,
            current: 0,
            next: 0,
            rng: SplitMix64::new(seed ^ 0xf11e_5e1e_c700_0000),
        })
    }

    /// The file of the next IO of `len` bytes.
    #[inline]
    pub fn next(&mut self, len: u64) -> usize {
        if self.files == 1 {
            return 0;
        }
        if let Choice::Sequential { issued, lengths } = &mut self.choice {
            // fio: finish one file before moving on (here: its length in bytes issued).
            if *issued >= lengths[self.current] {
                self.current = (self.current + 1) % self.files;
                *issued = 0;
            }
            *issued += len;
            return self.current;
        }
        if self.left > 0 {
            self.left -= 1;
            return self.current;
        }
        self.current = match &mut self.choice {
            Choice::RoundRobin => {
                let file = self.next;
                self.next = (self.next + 1) % self.files;
                file
            }
            Choice::Random => self.rng.below(self.files as u64) as usize,
            Choice::Skewed(picker) => {
                ((picker.next_block() >> RANK_SHIFT) as usize).min(self.files - 1)
            }
            Choice::Sequential { .. } => unreachable!("handled above"),
        };
        self.left = self.ios_per_choice - 1;
        self.current
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_model::job::RandomDistribution;

    const FILES: usize = 8;
    const DRAWS: usize = 80_000;

    /// IOs per file over `DRAWS` choices of 4 KiB IOs on files of 1 MiB.
    fn spread(service: FileService) -> Vec<usize> {
        let mut chooser = FileChooser::new(&service, &[1 << 20; FILES], 42).unwrap();
        let mut counts = vec![0; FILES];
        for _ in 0..DRAWS {
            counts[chooser.next(4096)] += 1;
        }
        counts
    }

    fn service(kind: FileServiceKind, ios_per_choice: u32) -> FileService {
        FileService {
            kind,
            ios_per_choice,
        }
    }

    #[test]
    fn roundrobin_with_a_count_gives_each_file_n_ios_in_turn() {
        let mut chooser =
            FileChooser::new(&service(FileServiceKind::RoundRobin, 3), &[1 << 20; 3], 1).unwrap();
        let order: Vec<usize> = (0..9).map(|_| chooser.next(4096)).collect();
        assert_eq!(order, [0, 0, 0, 1, 1, 1, 2, 2, 2]);
        assert!(spread(FileService::default())
            .iter()
            .all(|&c| c == DRAWS / FILES));
    }

    #[test]
    fn sequential_finishes_a_file_before_the_next() {
        // Files of 16 KiB: four 4 KiB IOs each, then the next file, wrapping.
        let mut chooser =
            FileChooser::new(&service(FileServiceKind::Sequential, 1), &[16384; 3], 1).unwrap();
        let order: Vec<usize> = (0..14).map(|_| chooser.next(4096)).collect();
        assert_eq!(order, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0]);
    }

    #[test]
    fn random_spreads_evenly_and_keeps_a_file_for_n_ios() {
        let counts = spread(service(FileServiceKind::Random, 1));
        // Each file expects 10000 draws, standard deviation ~94: within 5%.
        for &c in &counts {
            assert!((9_500..=10_500).contains(&c), "{counts:?}");
        }
        let mut chooser =
            FileChooser::new(&service(FileServiceKind::Random, 8), &[1 << 20; FILES], 7).unwrap();
        let order: Vec<usize> = (0..800).map(|_| chooser.next(4096)).collect();
        for run in order.chunks(8) {
            assert!(
                run.iter().all(|&f| f == run[0]),
                "8 IOs per choice: {run:?}"
            );
        }
        assert!(order.chunks(8).any(|r| r[0] != order[0]), "it does move on");
    }

    #[test]
    fn zipf_and_pareto_concentrate_on_few_files_in_rank_order_normal_around_the_center() {
        let skewed = |d: RandomDistribution| spread(service(FileServiceKind::Skewed(d), 1));
        // zipf:1.2 with the center at file 0: ranks in order, so file 0 takes the most and
        // the shares fall with the file number (fio-genzipf shows the same shape).
        let zipf = skewed(RandomDistribution::Zipf {
            theta: 1.2,
            center: Some(0.0),
        });
        assert!(zipf[0] > DRAWS / 2, "{zipf:?}");
        assert!(
            zipf.windows(2).all(|w| w[0] >= w[1]),
            "falling shares: {zipf:?}"
        );
        let pareto = skewed(RandomDistribution::Pareto {
            h: 0.2,
            center: Some(0.0),
        });
        assert!(pareto[0] > DRAWS / 2, "{pareto:?}");
        // normal:10 centred on the middle: the middle files take most, the ends little.
        let normal = skewed(RandomDistribution::Normal {
            deviation_pct: 10.0,
            center: Some(0.5),
        });
        let middle = normal[3] + normal[4];
        assert!(middle > DRAWS / 2, "{normal:?}");
        assert!(normal[0] + normal[FILES - 1] < DRAWS / 20, "{normal:?}");
    }
}
