;;; eglot_drive.el --- drives hwf-lsp from a real Emacs with eglot, headless  -*- lexical-binding: t -*-
;;
;; The user's config (the README's snippet) is loaded first with -l; this script then
;; opens the design as a user does (find-file), runs `post-command-hook' the way the
;; interactive command loop does after each command (eglot and flymake start there),
;; waits for the diagnostics flymake shows, and asks `completion-at-point-functions'
;; for the candidates at a position. It writes what it saw as JSON.
;; Env: HWF_DESIGN (the file opened: a design or a design test file), HWF_OUT (result file);
;;      optional: HWF_COMPLETE_AT ("line,character", 0-based), HWF_OTHER (a plain JSON
;;      file the config must leave alone: its mode and whether eglot manages it).

(require 'json)

(load (expand-file-name "eglot_keys.el" (file-name-directory load-file-name)) nil t)

(defun hwf-drive--line-col (pos)
  (save-excursion
    (goto-char pos)
    (list (1- (line-number-at-pos)) (current-column))))

(defun hwf-drive--diagnostics ()
  (mapcar (lambda (d)
            (let ((start (hwf-drive--line-col (flymake-diagnostic-beg d))))
              `((line . ,(nth 0 start)) (character . ,(nth 1 start))
                (type . ,(symbol-name (flymake-diagnostic-type d)))
                (message . ,(flymake-diagnostic-text d)))))
          (flymake-diagnostics)))

(defun hwf-drive--completions (spec)
  "The candidates completion-at-point offers at SPEC (\"line,character\")."
  (let ((at (mapcar #'string-to-number (split-string spec ","))))
    (goto-char (point-min))
    (forward-line (nth 0 at))
    (forward-char (nth 1 at))
    (let ((capf (run-hook-with-args-until-success 'completion-at-point-functions)))
      (when capf
        (all-completions (buffer-substring-no-properties (nth 0 capf) (nth 1 capf))
                         (nth 2 capf) (plist-get (nthcdr 3 capf) :predicate))))))

(let ((out (getenv "HWF_OUT"))
      (result nil))
  (condition-case err
      (progn
        (find-file (getenv "HWF_DESIGN"))
        (push `(mode . ,(symbol-name major-mode)) result)
        (push `(connected . ,(if (hwf-keys-wait #'eglot-current-server 30) t :json-false))
              result)
        (push `(flymake . ,(if (hwf-keys-wait #'flymake-diagnostics 30) t :json-false))
              result)
        (push `(diagnostics . ,(vconcat (hwf-drive--diagnostics))) result)
        (when (getenv "HWF_COMPLETE_AT")
          (push `(completion . ,(vconcat (hwf-drive--completions (getenv "HWF_COMPLETE_AT"))))
                result))
        (let ((server (eglot-current-server)))
          (when (getenv "HWF_OTHER")
            (with-current-buffer (find-file (getenv "HWF_OTHER"))
              (hwf-keys-wait #'eglot-managed-p 1)
              (push `(other_mode . ,(symbol-name major-mode)) result)
              (push `(other_managed . ,(if (eglot-managed-p) t :json-false)) result)))
          (eglot-shutdown server)))
    (error (push `(error . ,(error-message-string err)) result)))
  (with-temp-file out (insert (json-encode result)))
  (kill-emacs 0))
