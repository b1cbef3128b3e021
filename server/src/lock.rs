//! Turns between mutiny processes that write the same files: two editor
//! windows on one workspace share `target/mutiny/results.json`, two runs
//! may share a `mutants.out`. An exclusive advisory lock on a file (flock
//! on Unix) orders them; the lock goes with the process, however it ends.

use std::fs::{File, TryLockError};
use std::path::Path;

use anyhow::{Context, Result};

/// An exclusive lock, held until dropped.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

/// Takes the exclusive lock of the file at `path` (created if missing),
/// waiting while another process holds it; `waiting` is called first when
/// it has to wait, so that the user hears why nothing happens.
pub fn exclusive(path: &Path, waiting: impl FnOnce()) -> Result<Lock> {
    let file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(|| format!("cannot open the lock {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            waiting();
            file.lock()
                .with_context(|| format!("cannot lock {}", path.display()))?;
        }
        Err(TryLockError::Error(err)) => {
            return Err(err).with_context(|| format!("cannot lock {}", path.display()))
        }
    }
    Ok(Lock { _file: file })
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::exclusive;

    #[test]
    fn a_second_holder_waits_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let first = exclusive(&path, || panic!("nobody holds it yet")).unwrap();
        let (said_waiting, waited) = mpsc::channel();
        let (took, taken) = mpsc::channel();
        let second = std::thread::spawn(move || {
            let lock = exclusive(&path, || said_waiting.send(()).unwrap()).unwrap();
            took.send(()).unwrap();
            drop(lock);
        });
        waited
            .recv_timeout(Duration::from_secs(10))
            .expect("the second says it waits");
        assert!(taken.try_recv().is_err(), "taken while the first holds it");
        drop(first);
        taken
            .recv_timeout(Duration::from_secs(10))
            .expect("taken once the first lets go");
        second.join().unwrap();
    }
}
