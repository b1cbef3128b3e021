//! How long a mutant's commands may run, by cargo-mutants' rules.

use std::time::Duration;

/// Used when the baseline was skipped and no timeout was given.
/// The least timeout of a test binary run directly: no cargo start-up to
/// allow for, but a loaded machine can still slow a quick binary down.
const BINARY_MINIMUM: Duration = Duration::from_secs(5);

/// The least CPU-time limit of a test binary run directly. CPU time is
/// what a loop that never ends burns, and what a load on the machine (a
/// build beside it, a niced run starved by the editor) does not inflate:
/// this floor can be far below the wall-clock one.
const BINARY_CPU_MINIMUM: Duration = Duration::from_secs(1);

const FALLBACK_TEST_TIMEOUT: Duration = Duration::from_secs(300);

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timeouts {
    /// An explicit test timeout (`--timeout`).
    pub test: Option<Duration>,
    /// The multiple of the baseline test time (`--timeout-multiplier`).
    pub multiplier: Option<f64>,
    /// The least automatic test timeout.
    pub minimum: Duration,
    /// A build timeout (`--build-timeout`); none by default.
    pub build: Option<Duration>,
    /// The multiple of the baseline build time that mutants' builds may
    /// take (`--build-timeout-multiplier`), when no explicit build timeout.
    pub build_multiplier: Option<f64>,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            test: None,
            multiplier: None,
            minimum: Duration::from_secs(20),
            build: None,
            build_multiplier: None,
        }
    }
}

impl Timeouts {
    /// The test timeout given how long the baseline tests took, if they ran:
    /// explicit, else `multiplier` (default 5) × baseline rounded up to a
    /// whole second, at least `minimum`.
    pub fn test_timeout(&self, baseline_test: Option<Duration>) -> Duration {
        if let Some(explicit) = self.test {
            return explicit;
        }
        let Some(baseline_test) = baseline_test else {
            return FALLBACK_TEST_TIMEOUT;
        };
        let scaled = (baseline_test.as_secs_f64() * self.multiplier.unwrap_or(5.0)).ceil();
        Duration::from_secs_f64(scaled).max(self.minimum)
    }

    /// The build timeout for mutants given how long the baseline build
    /// took, if it ran: explicit, else `build_multiplier` × the baseline
    /// build (not rounded, no minimum, as cargo-mutants), else none.
    /// The timeout of one test binary run directly (compile-once): the
    /// explicit test timeout, else the multiplier (5 by default) times the
    /// binary's own baseline time, at least `BINARY_MINIMUM`; without a
    /// baseline, as for a whole test command.
    pub fn binary_timeout(&self, baseline: Option<Duration>) -> Duration {
        match (self.test, baseline) {
            (Some(explicit), _) => explicit,
            (None, Some(baseline)) => {
                let scaled = (baseline.as_secs_f64() * self.multiplier.unwrap_or(5.0)).ceil();
                Duration::from_secs_f64(scaled).max(BINARY_MINIMUM)
            }
            (None, None) => self.test_timeout(None),
        }
    }

    /// The CPU time one test binary run directly may use: the multiplier
    /// (5 by default) times the CPU time of the binary's baseline run,
    /// rounded up to a whole second, at least `BINARY_CPU_MINIMUM`. None
    /// with an explicit test timeout (which is wall-clock alone) or without
    /// a measured baseline.
    pub fn binary_cpu_timeout(&self, baseline_cpu: Option<Duration>) -> Option<Duration> {
        if self.test.is_some() {
            return None;
        }
        let scaled = (baseline_cpu?.as_secs_f64() * self.multiplier.unwrap_or(5.0)).ceil();
        Some(Duration::from_secs_f64(scaled).max(BINARY_CPU_MINIMUM))
    }

    pub fn build_timeout(&self, baseline_build: Option<Duration>) -> Option<Duration> {
        if self.build.is_some() {
            return self.build;
        }
        let multiplier = self.build_multiplier?;
        Duration::try_from_secs_f64(baseline_build?.as_secs_f64() * multiplier).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_timeout_is_five_times_the_baseline_and_at_least_twenty_seconds() {
        let timeouts = Timeouts::default();
        let secs = |s: f64| Some(Duration::from_secs_f64(s));
        assert_eq!(timeouts.test_timeout(secs(0.2)), Duration::from_secs(20));
        assert_eq!(timeouts.test_timeout(secs(10.1)), Duration::from_secs(51));
        let doubled = Timeouts {
            multiplier: Some(2.0),
            ..timeouts
        };
        assert_eq!(doubled.test_timeout(secs(30.0)), Duration::from_secs(60));
        let explicit = Timeouts {
            test: Some(Duration::from_secs(3)),
            ..timeouts
        };
        assert_eq!(explicit.test_timeout(secs(30.0)), Duration::from_secs(3));
        assert_eq!(timeouts.test_timeout(None), FALLBACK_TEST_TIMEOUT);
    }

    #[test]
    fn a_binarys_cpu_limit_is_five_times_its_baseline_cpu_time_and_at_least_a_second() {
        let timeouts = Timeouts::default();
        let secs = |s: f64| Some(Duration::from_secs_f64(s));
        assert_eq!(timeouts.binary_cpu_timeout(secs(0.01)), secs(1.0));
        assert_eq!(timeouts.binary_cpu_timeout(secs(0.5)), secs(3.0));
        assert_eq!(timeouts.binary_cpu_timeout(None), None, "not measured");
        let explicit = Timeouts {
            test: Some(Duration::from_secs(3)),
            ..timeouts
        };
        assert_eq!(explicit.binary_cpu_timeout(secs(0.5)), None);
        assert_eq!(explicit.binary_timeout(secs(0.5)), Duration::from_secs(3));
        let doubled = Timeouts {
            multiplier: Some(2.0),
            ..timeouts
        };
        assert_eq!(doubled.binary_cpu_timeout(secs(2.2)), secs(5.0));
    }

    #[test]
    fn build_timeout_is_explicit_or_a_multiple_of_the_baseline_build() {
        let secs = |s: u64| Some(Duration::from_secs(s));
        assert_eq!(Timeouts::default().build_timeout(secs(40)), None);
        let multiplied = Timeouts {
            build_multiplier: Some(1.5),
            ..Timeouts::default()
        };
        assert_eq!(multiplied.build_timeout(secs(40)), secs(60));
        assert_eq!(multiplied.build_timeout(None), None, "no baseline ran");
        let explicit = Timeouts {
            build: secs(3),
            ..multiplied
        };
        assert_eq!(explicit.build_timeout(secs(40)), secs(3));
    }
}
