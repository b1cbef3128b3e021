//! What rust-analyzer says of a run's mutants, as the lab takes it: first
//! where each mutant's code is compiled (quick once the model is loaded),
//! then, only for the mutants the lab is about to build alone, whether
//! they can compile. A switched build is its own proof of viability, and a
//! mutant a test reaches is compiled, so most mutants never wait for the
//! analysis.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc::Receiver;
use std::sync::Mutex;

use super::Event;
use crate::outcome::Judged;

/// What rust-analyzer found about some of a run's mutants.
#[derive(Debug, Default, Clone)]
pub struct Analysis {
    /// Mutants (by index) that cannot compile, and why.
    pub unviable: BTreeMap<usize, String>,
    /// Mutants (by index) whose code is not compiled for this target, and
    /// why.
    pub not_compiled: BTreeMap<usize, String>,
    /// A line for the run's output; empty for none.
    pub note: String,
    /// Mutants (by index) whose viability this answer covers: the
    /// viability answer comes in parts, each answering some mutants.
    pub checked: BTreeSet<usize>,
}

impl Analysis {
    /// What the analysis says of the mutant at `index`, if anything.
    pub fn judged(&self, index: usize) -> Option<Judged> {
        if let Some(why) = self.not_compiled.get(&index) {
            Some(Judged::NotCompiled(why.clone()))
        } else {
            self.unviable.get(&index).cloned().map(Judged::Unviable)
        }
    }
}

/// Asks the analysis which of the mutants at these indices cannot
/// compile; the answer arrives on the receiver in parts, each saying which
/// mutants it covers, the quick ones first (nothing, if the analysis is
/// gone); the last part has the note.
pub type AskViability = Box<dyn FnOnce(Vec<usize>) -> Option<Receiver<Analysis>> + Send>;

/// A run's analysis in two stages: the cfg verdicts of every mutant, sent
/// once the model is loaded, then the viability of the mutants asked.
pub struct AnalysisFeed {
    cfgs: Option<Receiver<Analysis>>,
    ask: Option<AskViability>,
    /// The mutants under some cfg: the only ones the cfg verdicts can
    /// call not compiled.
    under_cfgs: BTreeSet<usize>,
    /// The cfg verdicts, once received (empty if the analysis failed).
    received: Option<Analysis>,
    /// Where the answer to an early [`AnalysisFeed::ask`] arrives.
    answer: Option<Receiver<Analysis>>,
    /// The mutants the viability answer may rule out: a build of one of
    /// them waits for it.
    suspects: BTreeSet<usize>,
}

impl AnalysisFeed {
    /// A feed whose cfg verdicts of the mutants `under_cfgs` arrive on
    /// `cfgs` (with a note, on failure a note alone), and whose viability
    /// `ask` requests; of the mutants it asks about, only `suspects` may
    /// be ruled out.
    pub fn new(
        cfgs: Receiver<Analysis>,
        ask: AskViability,
        (under_cfgs, suspects): (BTreeSet<usize>, BTreeSet<usize>),
    ) -> AnalysisFeed {
        AnalysisFeed {
            cfgs: Some(cfgs),
            ask: Some(ask),
            under_cfgs,
            received: None,
            answer: None,
            suspects,
        }
    }

    /// Whether the cfg verdicts may call the mutant at `index` not
    /// compiled: if not, it needs no wait for them.
    pub fn under_cfgs(&self, index: usize) -> bool {
        self.under_cfgs.contains(&index)
    }

    /// Waits for the cfg verdicts (says their note the first time).
    pub fn cfgs(&mut self, on_event: &mut dyn FnMut(&Event)) -> &Analysis {
        if self.received.is_none() {
            let received = self
                .cfgs
                .take()
                .and_then(|cfgs| cfgs.recv().ok())
                .unwrap_or_default();
            if !received.note.is_empty() {
                on_event(&Event::Note(received.note.clone()));
            }
            self.received = Some(Analysis {
                note: String::new(),
                ..received
            });
        }
        self.received.as_ref().expect("received")
    }

    /// Asks now for the viability of the mutants at `indices`, to be
    /// judged while the lab does other work; [`AnalysisFeed::judge`] takes
    /// the answer.
    pub fn ask(&mut self, indices: Vec<usize>) {
        if let Some(ask) = self.ask.take() {
            self.answer = ask(indices);
        }
    }

    /// The cfg verdicts and the viability of the mutants at `indices`, or
    /// of those asked earlier (asked once per feed; later calls get the
    /// cfg verdicts alone).
    pub fn judge(&mut self, indices: &[usize], on_event: &mut dyn FnMut(&Event)) -> Analysis {
        let cfgs = self.cfgs(on_event).clone();
        let asked: Vec<usize> = indices
            .iter()
            .copied()
            .filter(|index| !cfgs.not_compiled.contains_key(index))
            .collect();
        if self.answer.is_none() && !asked.is_empty() {
            self.ask(asked);
        }
        let Some(answer) = self.answer.take() else {
            return cfgs;
        };
        let mut answers = Answers::new(Some(answer));
        let notes = answers.take(None, true);
        for note in notes {
            on_event(&Event::Note(note));
        }
        Analysis {
            unviable: answers.unviable,
            ..cfgs
        }
    }

    /// Both stages for the mutants at `indices`, still to come: a job that
    /// builds mutants alone waits for the cfg verdicts only before it
    /// builds a mutant under some cfg, and for the viability answer only
    /// before it builds a suspect; it builds the others meanwhile (of
    /// those the analysis says nothing).
    pub fn judge_later(&mut self, indices: &[usize]) -> Pending {
        if self.answer.is_none() && !indices.is_empty() {
            self.ask(indices.to_vec());
        }
        let cfgs = match self.received.clone() {
            Some(received) => Stage::Arrived(received),
            None => Stage::Coming(self.cfgs.take()),
        };
        Pending {
            state: Mutex::new((cfgs, Answers::new(self.answer.take()))),
            under_cfgs: self.under_cfgs.clone(),
            suspects: self.suspects.clone(),
        }
    }

    /// Both stages for every one of `mutants` mutants, and the notes (for
    /// `list --analysis`, which tests nothing).
    pub fn whole(mut self, mutants: usize) -> Analysis {
        let mut notes = Vec::new();
        let mut keep = |event: &Event| {
            if let Event::Note(note) = event {
                notes.push(note.clone());
            }
        };
        let indices: Vec<usize> = (0..mutants).collect();
        let analysis = self.judge(&indices, &mut keep);
        Analysis {
            note: notes.join("\n"),
            ..analysis
        }
    }
}

/// One stage of the analysis, as a job sees it.
enum Stage {
    /// Not there yet; it arrives here (nowhere: it never will).
    Coming(Option<Receiver<Analysis>>),
    Arrived(Analysis),
}

impl Stage {
    /// What arrived, waiting for it if `wait`; its note the first time.
    fn take(&mut self, wait: bool) -> (Option<&Analysis>, Option<String>) {
        let mut note = None;
        if let Stage::Coming(receiver) = self {
            let arrived = match receiver.as_ref() {
                // The analysis gone, nothing will come.
                Some(receiver) if wait => Some(receiver.recv().unwrap_or_default()),
                Some(receiver) => match receiver.try_recv() {
                    Ok(answer) => Some(answer),
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => Some(Analysis::default()),
                    Err(std::sync::mpsc::TryRecvError::Empty) => None,
                },
                None => Some(Analysis::default()),
            };
            if let Some(mut arrived) = arrived {
                note = Some(std::mem::take(&mut arrived.note)).filter(|n| !n.is_empty());
                *self = Stage::Arrived(arrived);
            }
        }
        match self {
            Stage::Arrived(analysis) => (Some(analysis), note),
            Stage::Coming(_) => (None, note),
        }
    }
}

/// The viability answer as its parts arrive.
struct Answers {
    /// Where the parts arrive; `None` once the last has.
    receiver: Option<Receiver<Analysis>>,
    /// The mutants answered so far.
    checked: BTreeSet<usize>,
    /// The mutants found unviable so far, and why.
    unviable: BTreeMap<usize, String>,
}

impl Answers {
    fn new(receiver: Option<Receiver<Analysis>>) -> Answers {
        Answers {
            receiver,
            checked: BTreeSet::new(),
            unviable: BTreeMap::new(),
        }
    }

    /// Takes the parts that arrived, and if `wait`, waits for the one
    /// that answers the mutant at `index` (`None`: for the last); returns
    /// the notes that came.
    fn take(&mut self, index: Option<usize>, wait: bool) -> Vec<String> {
        use std::sync::mpsc::TryRecvError;
        let mut notes = Vec::new();
        while let Some(receiver) = &self.receiver {
            let answered = index.is_some_and(|index| self.checked.contains(&index));
            let part = match wait && !answered {
                true => receiver.recv().ok(),
                false => match receiver.try_recv() {
                    Ok(part) => Some(part),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => None,
                },
            };
            let Some(part) = part else {
                // The analysis is done, or gone: nothing more will come.
                self.receiver = None;
                break;
            };
            self.checked.extend(part.checked);
            self.unviable.extend(part.unviable);
            notes.extend(Some(part.note).filter(|note| !note.is_empty()));
        }
        notes
    }
}

/// The analysis of the mutants built alone, as the jobs that build them
/// take it: each stage waited for only where it may rule a mutant out,
/// the viability answer only until the part that answers that mutant.
pub struct Pending {
    /// The cfg verdicts, and the viability answer.
    state: Mutex<(Stage, Answers)>,
    /// The mutants the cfg verdicts may call not compiled.
    under_cfgs: BTreeSet<usize>,
    /// The mutants the viability answer may rule out.
    suspects: BTreeSet<usize>,
}

impl Pending {
    /// Whether a build of the mutant at `index` waits for the analysis.
    pub fn waits(&self, index: usize) -> bool {
        self.under_cfgs.contains(&index) || self.suspects.contains(&index)
    }

    /// What the analysis says of the mutant at `index` (waited for where
    /// it may rule it out), and the notes of the stages that arrived.
    /// Jobs take the mutants that wait last: while one waits here, the
    /// others have only such mutants left, and would wait too.
    pub fn judged(&self, index: usize) -> (Option<Judged>, Vec<String>) {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (cfgs, viability) = &mut *state;
        let mut notes = Vec::new();
        let (cfgs, note) = cfgs.take(self.under_cfgs.contains(&index));
        notes.extend(note);
        if let Some(why) = cfgs.and_then(|cfgs| cfgs.not_compiled.get(&index)) {
            return (Some(Judged::NotCompiled(why.clone())), notes);
        }
        notes.extend(viability.take(Some(index), self.suspects.contains(&index)));
        let unviable = viability.unviable.get(&index);
        (unviable.map(|why| Judged::Unviable(why.clone())), notes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_suspect_waits_only_for_the_part_of_the_answer_that_covers_it() {
        let (cfgs_sender, cfgs) = mpsc::channel();
        cfgs_sender.send(Analysis::default()).unwrap();
        let (parts, answer) = mpsc::channel();
        let ask: AskViability = Box::new(move |_| Some(answer));
        let suspects = BTreeSet::from([1, 2]);
        let mut feed = AnalysisFeed::new(cfgs, ask, (BTreeSet::new(), suspects));
        let pending = feed.judge_later(&[0, 1, 2]);
        // The first part answers mutant 1; the analysis goes on with 2.
        parts
            .send(Analysis {
                unviable: BTreeMap::from([(1, "it does not fit".to_owned())]),
                checked: BTreeSet::from([0, 1]),
                ..Analysis::default()
            })
            .unwrap();
        let (judged, notes) = pending.judged(1);
        assert!(
            matches!(judged, Some(Judged::Unviable(ref why)) if why == "it does not fit"),
            "{judged:?}"
        );
        assert!(notes.is_empty(), "{notes:?}");
        // Not a suspect: no wait.
        assert!(pending.judged(0).0.is_none());
        // The last part, with the note, for mutant 2.
        parts
            .send(Analysis {
                checked: BTreeSet::from([2]),
                note: "rust-analyzer: 1 mutants cannot compile".to_owned(),
                ..Analysis::default()
            })
            .unwrap();
        let (judged, notes) = pending.judged(2);
        assert!(judged.is_none(), "{judged:?}");
        assert_eq!(notes, ["rust-analyzer: 1 mutants cannot compile"]);
    }
}
