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
