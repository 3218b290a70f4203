;;; eglot_capf.el --- Emacs's stock completion UI on hwf-lsp, batch  -*- lexical-binding: t -*-
;;
;; The user's config (the README's snippet) is loaded first with -l. For each case this
;; script sets the design's buffer, puts point at the case's place and runs its actions as
;; a user does with no completion package: "C-M-i" (`completion-at-point', which inserts
;; the candidates' common prefix, completes a sole match, or lists them in *Completions*),
;; "choose" (the first entry of *Completions*, as RET or a click there chooses it), or a
;; character typed. After each action it records the buffer.
;; Env: HWF_DESIGN (file), HWF_OUT (result file), HWF_CASES (JSON: [{lines, line, col,
;;      actions: ["C-M-i", "choose", "c", ...]}]).

(require 'json)

(load (expand-file-name "eglot_keys.el" (file-name-directory load-file-name)) nil t)

(defun hwf-capf--command (command &optional char)
  "Run COMMAND as a key, then let the server answer."
  (hwf-keys-command command char)
  (hwf-keys-pause 300))

(defun hwf-capf--choose ()
  "Choose the first entry of *Completions* as RET there does."
  (let ((buffer (get-buffer "*Completions*")))
    (if (not (and buffer (get-buffer-window buffer t)))
        "no *Completions*"
      (with-selected-window (get-buffer-window buffer t)
        (goto-char (point-min))
        (next-completion 1)
        (hwf-capf--command #'choose-completion))
      nil)))

(defun hwf-capf--case (case)
  (let ((inhibit-read-only t) (steps nil))
    (when (get-buffer "*Completions*") (kill-buffer "*Completions*"))
    (completion-in-region-mode -1)
    (erase-buffer)
    (insert (mapconcat #'identity (alist-get 'lines case) "\n"))
    (run-hooks 'post-command-hook)
    (goto-char (point-min))
    (forward-line (alist-get 'line case))
    (forward-char (alist-get 'col case))
    (seq-doseq (action (alist-get 'actions case))
      (let ((problem
             (cond ((string= action "C-M-i") (hwf-capf--command #'completion-at-point) nil)
                   ((string= action "choose") (hwf-capf--choose))
                   (t (hwf-capf--command #'self-insert-command (string-to-char action)) nil))))
        (push `((action . ,action) (problem . ,problem)
                (lines . ,(vconcat (split-string (buffer-string) "\n"))))
              steps)))
    (vconcat (nreverse steps))))

(hwf-keys-run-cases #'hwf-capf--case)
