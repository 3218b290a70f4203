;;; eglot_type.el --- types text by hand in a real Emacs with eglot, batch  -*- lexical-binding: t -*-
;;
;; The user's config (the README's snippet) is loaded first with -l. For each case this
;; script opens the case's file as a user does (find-file), waits for eglot, sets the
;; buffer, puts point where typing starts, and types one key at a time as the command loop
;; runs a key: `pre-command-hook', `self-insert-command' (its `post-self-insert-hook':
;; electric indentation, eglot's on-type formatting), `post-command-hook' (eglot's change
;; notification, flymake), then the server's messages are read for the key's delay. It
;; never completes: it records the buffer once typing is done.
;; Env: HWF_OUT (result file), HWF_CASES (JSON: [{file, lines, line, col, keys: [[key, ms]]}]).

(require 'json)

(load (expand-file-name "eglot_keys.el" (file-name-directory load-file-name)) nil t)

(defun hwf-type--case (case)
  (find-file (alist-get 'file case))
  (hwf-keys-wait #'eglot-current-server 30)
  (hwf-keys-pause 500)
  (let ((inhibit-read-only t))
    (erase-buffer)
    (insert (mapconcat #'identity (alist-get 'lines case) "\n"))
    (run-hooks 'post-command-hook)
    (hwf-keys-pause 500)
    (goto-char (point-min))
    (forward-line (alist-get 'line case))
    (forward-char (alist-get 'col case))
    (seq-doseq (step (alist-get 'keys case))
      (hwf-keys-pause (aref step 1))
      (hwf-keys-command #'self-insert-command (string-to-char (aref step 0))))
    (hwf-keys-pause 800)
    (prog1 `((lines . ,(vconcat (split-string (buffer-string) "\n"))))
      (set-buffer-modified-p nil))))

(let ((out (getenv "HWF_OUT"))
      (cases (append (json-read-file (getenv "HWF_CASES")) nil))
      (result nil))
  (condition-case err
      (progn
        (push `(results . ,(vconcat (mapcar #'hwf-type--case cases))) result)
        (push `(snippets . ,(if (eglot--snippet-expansion-fn) t :json-false)) result)
        (eglot-shutdown (eglot-current-server)))
    (error (push `(error . ,(error-message-string err)) result)))
  (with-temp-file out (insert (json-encode result)))
  (kill-emacs 0))
