;;; eglot_accept.el --- accepts completion items in a real Emacs with eglot, batch  -*- lexical-binding: t -*-
;;
;; The user's config (the README's snippet) is loaded first with -l; this script opens the
;; design as a user does, waits for eglot and flymake, then for each case sets the buffer,
;; puts point there, asks `completion-at-point-functions' (eglot's capf), picks the first
;; candidate in the table's own display order or a named one, and accepts it the way a
;; completion UI does (company, corfu, `completion-in-region'): the candidate replaces the
;; typed text and the table's :exit-function runs with `finished'. It records the buffer.
;; Env: HWF_DESIGN (file), HWF_OUT (result file), HWF_CASES (JSON: [{lines, line, col, pick}]).

(require 'json)
(require 'seq)

(load (expand-file-name "eglot_keys.el" (file-name-directory load-file-name)) nil t)

(defun hwf-accept--sorted (table input pred)
  "The candidates TABLE offers for INPUT, in the order the table asks a UI to show them."
  (let* ((all (all-completions input table pred))
         (sort (completion-metadata-get (completion-metadata input table pred)
                                        'display-sort-function)))
    (if sort (funcall sort all) all)))

(defun hwf-accept--case (case)
  (let ((inhibit-read-only t))
    (erase-buffer)
    (insert (mapconcat #'identity (alist-get 'lines case) "\n"))
    (when (fboundp 'eglot--signal-textDocument/didChange)
      (eglot--signal-textDocument/didChange))
    (goto-char (point-min))
    (forward-line (alist-get 'line case))
    (forward-char (alist-get 'col case))
    (let* ((capf (run-hook-with-args-until-success 'completion-at-point-functions))
           (start (nth 0 capf)) (end (nth 1 capf)) (table (nth 2 capf))
           (props (nthcdr 3 capf))
           (input (and capf (buffer-substring-no-properties start end)))
           (candidates (and capf (hwf-accept--sorted table input
                                                    (plist-get props :predicate))))
           (pick (alist-get 'pick case))
           (chosen (if pick (seq-find (lambda (c) (string= c pick)) candidates)
                     (car candidates))))
      (if (not chosen)
          `((error . "no such item") (labels . ,(vconcat candidates)))
        (delete-region start end)
        (goto-char start)
        (insert chosen)
        (funcall (plist-get props :exit-function) chosen 'finished)
        `((chosen . ,chosen) (labels . ,(vconcat candidates))
          (lines . ,(vconcat (split-string (buffer-string) "\n")))
          (cursor . ,(vector (1- (line-number-at-pos)) (current-column))))))))

(hwf-keys-run-cases #'hwf-accept--case
                    (lambda () `(snippets . ,(if (eglot--snippet-expansion-fn) t :json-false))))
