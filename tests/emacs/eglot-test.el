;;; eglot-test.el --- Emacs + eglot + the real `mutiny lsp' -*- lexical-binding: t -*-

;; Run by tests/emacs/run.sh, which copies tests/fixtures/example to a
;; temporary git repository and sets:
;;   MUTINY_BIN            the mutiny binary
;;   MUTINY_TEST_CRATE     the copy of the example crate
;;   MUTINY_TEST_EXPECTED  tests/fixtures/EXPECTED.md
;;
;; What it checks, through eglot's own code paths:
;; 1. eglot starts `mutiny lsp' for a Rust buffer from the
;;    `eglot-server-programs' entry of editors/emacs/mutiny-eglot.el;
;; 2. saving the buffer (eglot sends didSave) yields, in Flymake, exactly
;;    the 11 missed mutants EXPECTED.md lists for the example crate, as
;;    warnings at their line and column;
;; 3. the quick fix on `compatible's diagnostics, run as
;;    `C-u M-x eglot-code-actions RET quickfix' runs it, puts
;;    `#[mutants::skip]' on its own line above `fn compatible' and adds the
;;    `mutants' dependency to Cargo.toml.
;; Exits 0 when all hold, 1 on the first failure, 2 when eglot is missing.

(require 'cl-lib)
(require 'subr-x)

(defconst mutiny-test-deadline 180
  "Seconds to wait for the results of one save (a cold first build).")

(defvar mutiny-test-passed 0)

(defun mutiny-test-fail (format-string &rest args)
  (message "FAIL: %s" (apply #'format format-string args))
  (message "%d passed, 1 failed" mutiny-test-passed)
  (kill-emacs 1))

(defun mutiny-test-ok (format-string &rest args)
  (cl-incf mutiny-test-passed)
  (message "ok - %s" (apply #'format format-string args)))

(defun mutiny-test-env (name)
  (or (getenv name) (mutiny-test-fail "%s is not set: run tests/emacs/run.sh" name)))

;;; Packages: Debian's elpa-* packages live in site-lisp/elpa, which
;;; `emacs -Q' does not activate.  Emacs 29 and later carry eglot.
(require 'package)
(setq package-directory-list '("/usr/share/emacs/site-lisp/elpa")
      package-user-dir (expand-file-name "elpa" (mutiny-test-env "TMPDIR")))
(package-initialize)
(unless (require 'eglot nil t)
  (message "tests/emacs: eglot is not available; install it with:")
  (message "  apt-get install -y %s" (or (getenv "EMACS_TEST_PACKAGES")
                                        "emacs-nox elpa-eglot elpa-rust-mode"))
  (kill-emacs 2))
(message "Emacs %s, eglot %s, rust-mode: %s" emacs-version
         (or (ignore-errors (package-desc-version
                             (cadr (assq 'eglot package-alist))))
             "built in")
         (if (require 'rust-mode nil t) "elpa-rust-mode" "none, a bare one"))
(unless (fboundp 'rust-mode)
  ;; Without elpa-rust-mode: a bare major mode of the same name, so that
  ;; the configuration below is the one the docs give.
  (define-derived-mode rust-mode prog-mode "Rust")
  (add-to-list 'auto-mode-alist '("\\.rs\\'" . rust-mode)))

;;; The configuration under test: editors/emacs/mutiny-eglot.el, as
;;; docs/editors.md tells users to load it, with the binary's path.
(defvar mutiny-eglot-program)
(setq mutiny-eglot-program (mutiny-test-env "MUTINY_BIN"))
(load (expand-file-name "../../editors/emacs/mutiny-eglot.el"
                        (file-name-directory load-file-name))
      nil t)
;; Settings go where eglot sends them as workspace/didChangeConfiguration
;; (usually .dir-locals.el).
(setq-default eglot-workspace-configuration '(:mutiny (:onSave t :jobs 1)))
(setq eglot-sync-connect nil)

;;; What the server says, for waiting and for the failure report.
(defvar mutiny-test-progress-ends 0
  "How many `$/progress' ends the server sent (one per job).")
(defvar mutiny-test-shown nil "window/showMessage texts, newest first.")

(advice-add 'eglot-handle-notification :before
            (lambda (_server method &rest params)
              (pcase method
                ('$/progress
                 (when (equal (plist-get (plist-get params :value) :kind) "end")
                   (cl-incf mutiny-test-progress-ends)
                   (message "mutiny: %s"
                            (plist-get (plist-get params :value) :message))))
                ('window/showMessage
                 (push (plist-get params :message) mutiny-test-shown)
                 (message "mutiny says: %s" (plist-get params :message))))))

(defun mutiny-test-wait (what predicate seconds)
  "Process server output until PREDICATE holds; fail after SECONDS."
  (let ((end (+ (float-time) seconds)))
    (while (not (funcall predicate))
      (when (> (float-time) end)
        (mutiny-test-fail "no %s after %d s (server messages: %S)"
                          what seconds mutiny-test-shown))
      (accept-process-output nil 0.5))))

(defun mutiny-test-dump-events ()
  "Print the tail of eglot's events buffer (the JSON-RPC exchange)."
  (when-let ((server (ignore-errors (eglot-current-server)))
             (events (ignore-errors (jsonrpc-events-buffer server))))
    (with-current-buffer events
      (message "--- eglot events (last 6000 chars) ---\n%s"
               (buffer-substring-no-properties
                (max (point-min) (- (point-max) 6000)) (point-max))))))

(defun mutiny-test-expected-missed ()
  "The example crate's missed mutants from EXPECTED.md: (LINE COL TEXT)."
  (with-temp-buffer
    (insert-file-contents (mutiny-test-env "MUTINY_TEST_EXPECTED"))
    (goto-char (point-min))
    (unless (and (search-forward "- **example**" nil t)
                 (search-forward "missed.txt" nil t)
                 (search-forward "```\n" nil t))
      (mutiny-test-fail "EXPECTED.md has no missed.txt block for example"))
    (let ((block-end (save-excursion (search-forward "```")))
          found)
      (while (re-search-forward
              "src/lib\\.rs:\\([0-9]+\\):\\([0-9]+\\): \\(.*\\)$" block-end t)
        (push (list (string-to-number (match-string 1))
                    (string-to-number (match-string 2))
                    (match-string 3))
              found))
      (nreverse found))))

(defun mutiny-test-before (a b)
  "Whether (LINE COL TEXT ...) A sorts before B."
  (pcase-let ((`(,la ,ca ,ta . ,_) a) (`(,lb ,cb ,tb . ,_) b))
    (or (< la lb) (and (= la lb) (or (< ca cb) (and (= ca cb) (string< ta tb)))))))

(defun mutiny-test-mutiny-diagnostics ()
  "Flymake's diagnostics in this buffer that came from mutiny, as
\(LINE COL TEXT TYPE), sorted."
  (sort (cl-loop for diag in (flymake-diagnostics)
                 for text = (flymake-diagnostic-text diag)
                 when (string-prefix-p "mutiny" text)
                 collect (save-excursion
                           (goto-char (flymake-diagnostic-beg diag))
                           (list (line-number-at-pos) (1+ (current-column))
                                 text (flymake-diagnostic-type diag))))
        #'mutiny-test-before))

(defun mutiny-test-run ()
  (let* ((crate (file-name-as-directory (mutiny-test-env "MUTINY_TEST_CRATE")))
         (lib (expand-file-name "src/lib.rs" crate))
         (manifest (expand-file-name "Cargo.toml" crate))
         (expected (mutiny-test-expected-missed)))
    (unless (= (length expected) 11)
      (mutiny-test-fail "EXPECTED.md lists %d missed mutants, not 11"
                        (length expected)))
    (find-file lib)
    (unless (eq major-mode 'rust-mode)
      (mutiny-test-fail "src/lib.rs opened in %s, not rust-mode" major-mode))

    ;; 1. Connect as `M-x eglot' does, from `eglot-server-programs'.
    (apply #'eglot (eglot--guess-contact))
    (mutiny-test-wait "eglot connection"
                      (lambda () (and (eglot-current-server) eglot--managed-mode))
                      60)
    (let ((server (eglot-current-server)))
      (unless (equal (plist-get (eglot--server-info server) :name) "mutiny")
        (mutiny-test-fail "the server is %S, not mutiny" (eglot--server-info server)))
      (unless (equal (file-name-as-directory
                      (expand-file-name (project-root (eglot--project server))))
                     (file-name-as-directory (file-truename crate)))
        (mutiny-test-fail "eglot's project root is %s, not the crate"
                          (project-root (eglot--project server))))
      (mutiny-test-ok "eglot connected to %s for %s"
                      (eglot--server-info server) (eglot-project-nickname server)))

    ;; 2. Save: eglot sends didSave and mutiny tests the file's mutants.
    (set-buffer-modified-p t)
    (save-buffer)
    (mutiny-test-wait "end of the mutants run (a $/progress end)"
                      (lambda () (> mutiny-test-progress-ends 0))
                      mutiny-test-deadline)
    ;; Interactively Flymake asks eglot for the diagnostics after the next
    ;; command; a batch session runs no commands, so ask here.
    (flymake-start)
    (let ((got (mutiny-test-mutiny-diagnostics))
          (want (sort (copy-sequence expected) #'mutiny-test-before)))
      (unless (= (length got) 11)
        (mutiny-test-dump-events)
        (mutiny-test-fail "Flymake has %d mutiny diagnostics, not 11:\n%s"
                          (length got) (mapconcat #'prin1-to-string got "\n")))
      ;; Each expected mutant has its own diagnostic at its line and column,
      ;; a warning whose text ends in the mutant's description.
      (let ((unmatched (copy-sequence got)))
        (dolist (w want)
          (pcase-let ((`(,line ,col ,description) w))
            (let ((hit (cl-find-if
                        (pcase-lambda (`(,l ,c ,text ,type))
                          (and (= l line) (= c col) (eq type 'eglot-warning)
                               (string-suffix-p
                                (format "missed mutant: %s — tests still pass"
                                        description)
                                text)))
                        unmatched)))
              (unless hit
                (mutiny-test-fail "no warning for %d:%d %s among:\n%s" line col
                                  description
                                  (mapconcat #'prin1-to-string got "\n")))
              (setq unmatched (delq hit unmatched))))))
      (mutiny-test-ok "Flymake shows the 11 missed mutants of EXPECTED.md:\n  %s"
                      (mapconcat (pcase-lambda (`(,l ,c ,text ,_)) (format "%d:%d %s" l c text))
                                 got "\n  ")))

    ;; 3. The quick fix on `compatible', as `C-u M-x eglot-code-actions'
    ;; with kind quickfix: one quickfix, so eglot runs it without asking
    ;; which.  Cargo.toml is not open, so eglot asks before editing it;
    ;; answer yes, and remember the question.
    (goto-char (point-min))
    (re-search-forward "^ *version\\.major == 0 && ")
    (let* ((beg (line-beginning-position))
           (end (line-end-position))
           (asked nil))
      (cl-letf (((symbol-function 'y-or-n-p)
                 (lambda (prompt) (push prompt asked) t)))
        (condition-case err
            (eglot-code-actions beg end "quickfix" t)
          (error (mutiny-test-dump-events)
                 (mutiny-test-fail "eglot-code-actions: %S" err))))
      (goto-char (point-min))
      (unless (re-search-forward "^#\\[mutants::skip\\]\nfn compatible(" nil t)
        (mutiny-test-dump-events)
        (mutiny-test-fail "no #[mutants::skip] above fn compatible:\n%s"
                          (buffer-substring-no-properties
                           (point-min) (point-max))))
      (unless (= (how-many "#\\[mutants::skip\\]" (point-min) (point-max)) 1)
        (mutiny-test-fail "#[mutants::skip] was added %d times"
                          (how-many "#\\[mutants::skip\\]" (point-min) (point-max))))
      (unless (and asked (string-match-p (regexp-quote manifest) (car asked)))
        (mutiny-test-fail "eglot did not ask before editing Cargo.toml: %S" asked))
      (with-current-buffer (find-buffer-visiting manifest)
        (unless (and (string-match-p "^\\[dependencies\\]$" (buffer-string))
                     (string-match-p "^mutants = \"0\\.0\\.4\"$" (buffer-string)))
          (mutiny-test-fail "Cargo.toml lacks the mutants dependency:\n%s"
                            (buffer-string))))
      (mutiny-test-ok "the quick fix put #[mutants::skip] above fn compatible and added mutants to Cargo.toml (eglot asked: %S)"
                      (car asked)))

    ;; Shut the server down so that it deletes its scratch trees (while
    ;; answering `shutdown'; then eglot 1.9 kills it at once, hence
    ;; "[jsonrpc] Server exited with status 9"), and check that it did:
    ;; its scratch trees and logs go in TMPDIR (run.sh's temporary dir).
    (let ((server (eglot-current-server))
          (tmp (mutiny-test-env "TMPDIR")))
      (unless (directory-files tmp nil "\\`mutiny-")
        (mutiny-test-fail "no mutiny scratch tree in %s while the server runs" tmp))
      (set-buffer-modified-p nil)
      (eglot-shutdown server nil 10)
      (let ((left (directory-files tmp nil "\\`mutiny-")))
        (when left
          (mutiny-test-fail "after shutdown the server left in %s: %S" tmp left)))
      (mutiny-test-ok "the server deleted its scratch trees and logs when it shut down"))
    (message "%d passed, 0 failed" mutiny-test-passed)
    (kill-emacs 0)))

;; Never let a Lisp error leave Emacs waiting: report it and exit 1.
(condition-case err
    (mutiny-test-run)
  (error (mutiny-test-dump-events)
         (mutiny-test-fail "Lisp error: %S" err)))
