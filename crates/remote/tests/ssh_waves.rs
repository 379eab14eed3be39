//! The start waves of ssh sessions (below OpenSSH's MaxStartups) and which failures are
//! worth another try.

use iofit_remote::controller::{is_reset, waves, SSH_WAVE};

#[test]
fn waves_hold_at_most_eight_sessions_per_destination_side_by_side() {
    // 20 sessions to a, 3 to b: a's in waves of 8, 8, 4; b's all in the first.
    let mut destinations = vec!["a"; 20];
    destinations.extend(["b"; 3]);
    let plan = waves(&destinations, SSH_WAVE);
    assert_eq!(plan.len(), 3);
    let per = |wave: &Vec<usize>, d: &str| wave.iter().filter(|&&i| destinations[i] == d).count();
    assert_eq!(
        plan.iter()
            .map(|w| (per(w, "a"), per(w, "b")))
            .collect::<Vec<_>>(),
        [(8, 3), (8, 0), (4, 0)]
    );
    // Every session once.
    let mut all: Vec<usize> = plan.concat();
    all.sort_unstable();
    assert_eq!(all, (0..23).collect::<Vec<_>>());
}

#[test]
fn resets_are_retried_refusals_are_not() {
    assert!(is_reset(
        "could not start iofit worker over ssh: kex_exchange_identification: read: Connection reset by peer"
    ));
    assert!(is_reset("ssh: Connection closed by 10.0.0.1 port 22"));
    assert!(!is_reset("Permission denied (publickey)"));
    assert!(!is_reset("bash: iofit: command not found"));
}
