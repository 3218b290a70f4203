;;; eglot_keys.el --- what the batch eglot drivers share  -*- lexical-binding: t -*-
;;
;; Loaded by every eglot driver here: waiting as the command loop waits, and a
;; command run as the command loop runs a key.

(defun hwf-keys-wait (ready seconds)
  "Run the command loop's hooks and read process output until READY or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall ready)) (< (float-time) deadline))
      (run-hooks 'post-command-hook)
      (accept-process-output nil 0.05))
    (funcall ready)))

(defun hwf-keys-pause (ms)
  "Let MS pass as between two keys: timers run, the server's messages are read."
  (let ((deadline (+ (float-time) (/ ms 1000.0))))
    (while (< (float-time) deadline)
      (accept-process-output nil 0.02))))

(defun hwf-keys-command (command &optional char)
  "Run COMMAND as the command loop runs a key (CHAR: the key typed): `pre-command-hook',
the command (a `self-insert-command' runs `post-self-insert-hook': electric indentation,
eglot's on-type formatting), `post-command-hook' (eglot's change notification)."
  (let ((last-command-event (or char last-command-event))
        (this-command command))
    (run-hooks 'pre-command-hook)
    (call-interactively command)
    (setq last-command command)
    (run-hooks 'post-command-hook)))

(provide 'eglot_keys)

(defun hwf-keys-run-cases (case-fn &rest before)
  "Open $HWF_DESIGN, wait for eglot and its first diagnostics, then write to $HWF_OUT
the entries BEFORE (each a function giving a (KEY . VALUE)) and `results': CASE-FN of
each case in $HWF_CASES; an error is written as `error'.  Exits Emacs."
  (let ((out (getenv "HWF_OUT"))
        (cases (append (json-read-file (getenv "HWF_CASES")) nil))
        (result nil))
    (condition-case err
        (progn
          (find-file (getenv "HWF_DESIGN"))
          (hwf-keys-wait #'eglot-current-server 30)
          (hwf-keys-wait #'flymake-diagnostics 30)
          (dolist (entry before) (push (funcall entry) result))
          (push `(results . ,(vconcat (mapcar case-fn cases))) result)
          (eglot-shutdown (eglot-current-server)))
      (error (push `(error . ,(error-message-string err)) result)))
    (with-temp-file out (insert (json-encode result)))
    (kill-emacs 0)))
