;;; mutiny-eglot.el --- mutiny's missed mutants in eglot -*- lexical-binding: t -*-

;; Makes eglot start `mutiny lsp' for Rust buffers, instead of
;; rust-analyzer, or beside it through the `rass' multiplexer
;; (pip install rassumfrassum).  See docs/editors.md.
;;
;;   (load "/path/to/mutiny/editors/emacs/mutiny-eglot.el")
;;   ;; optional:
;;   (setq mutiny-eglot-beside-rust-analyzer t)
;;
;; Settings go in `eglot-workspace-configuration', under :mutiny, e.g. in
;; the project's .dir-locals.el:
;;   ((nil . ((eglot-workspace-configuration
;;             . (:mutiny (:jobs 2 :scope "changedFunctions"))))))

(require 'eglot)

(defvar mutiny-eglot-program "mutiny"
  "The mutiny binary: a name on `exec-path' or an absolute file name.")

(defvar mutiny-eglot-beside-rust-analyzer nil
  "Non-nil: run rust-analyzer and mutiny together through `rass'.
Eglot runs one server per major mode and project; the multiplexer
`rass' (PyPI package rassumfrassum) makes the two look like one.")

(defun mutiny-eglot-contact (&optional _interactive)
  "The command eglot runs for Rust buffers."
  (if mutiny-eglot-beside-rust-analyzer
      (list "rass" "--" "rust-analyzer" "--" mutiny-eglot-program "lsp")
    (list mutiny-eglot-program "lsp")))

(add-to-list 'eglot-server-programs
             '((rust-mode rust-ts-mode) . mutiny-eglot-contact))

(provide 'mutiny-eglot)
;;; mutiny-eglot.el ends here
