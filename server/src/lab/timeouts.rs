//! How long a mutant's commands may run, by cargo-mutants' rules.

use std::time::Duration;

/// Used when the baseline was skipped and no timeout was given.
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
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            test: None,
            multiplier: None,
            minimum: Duration::from_secs(20),
            build: None,
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
}
