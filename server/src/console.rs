//! What `mutiny run` shows while it works: a progress bar on a terminal
//! (indicatif), plain lines otherwise. The interface to `indicatif` is here.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::lab::Event;
use crate::outcome::{Counts, Judged, Phase, ScenarioOutcome, Verdict};

pub struct Console {
    bar: Option<ProgressBar>,
    /// Human-readable lines go to stderr when stdout carries JSON.
    to_stderr: bool,
    counts: Counts,
}

impl Console {
    pub fn new(total_mutants: usize, json: bool) -> Console {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(total_mutants as u64),
                ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} {pos}/{len} mutants [{elapsed_precise}, ~{eta} left] {msg}",
                )
                .expect("valid template"),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Console {
            bar,
            to_stderr: json,
            counts: Counts::default(),
        }
    }

    pub fn line(&self, text: &str) {
        let print = || {
            if self.to_stderr {
                eprintln!("{text}");
            } else {
                println!("{text}");
                let _ = std::io::stdout().flush();
            }
        };
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    pub fn event(&mut self, event: &Event) {
        match event {
            Event::BaselineStarted => self.status("building and testing the unmutated tree"),
            Event::BaselineFinished(outcome) if outcome.success() => {
                self.line(&format!(
                    "ok       Unmutated baseline in {}",
                    times(outcome)
                ));
            }
            Event::BaselineFinished(_) => {}
            Event::TestTimeout(timeout) => {
                self.line(&format!("test timeout: {}s", timeout.as_secs_f64().ceil()));
            }
            Event::MutantStarted { .. } => {}
            Event::Note(note) => self.line(note),
            Event::MutantFinished(outcome) => self.mutant_finished(outcome),
        }
    }

    fn mutant_finished(&mut self, outcome: &ScenarioOutcome) {
        let Some(verdict) = outcome.verdict() else {
            return;
        };
        self.counts.add(verdict);
        let label = match verdict {
            Verdict::Missed => Some("MISSED  "),
            Verdict::Timeout => Some("TIMEOUT "),
            Verdict::Caught | Verdict::Unviable | Verdict::NotCompiled => None,
        };
        if let (Some(label), Some(mutant)) = (label, outcome.scenario.mutant()) {
            self.line(&format!("{label} {} in {}", mutant.name, times(outcome)));
        }
        if let (Some(Judged::NotCompiled(why)), Some(mutant)) =
            (&outcome.judged, outcome.scenario.mutant())
        {
            self.line(&format!("NOT COMPILED {}: {why}", mutant.name));
        }
        if let Some(bar) = &self.bar {
            bar.inc(1);
            let c = &self.counts;
            bar.set_message(format!(
                "{} missed, {} caught, {} unviable, {} timeouts",
                c.missed, c.caught, c.unviable, c.timeout
            ));
        }
    }

    fn status(&self, message: &str) {
        match &self.bar {
            Some(bar) => bar.set_message(message.to_owned()),
            None => self.line(message),
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// `1.2s build + 0.3s test`.
fn times(outcome: &ScenarioOutcome) -> String {
    [Phase::Build, Phase::Test]
        .iter()
        .filter_map(|&phase| {
            outcome
                .duration(phase)
                .map(|d| format!("{:.1}s {}", d.as_secs_f64(), phase.name()))
        })
        .collect::<Vec<_>>()
        .join(" + ")
}
