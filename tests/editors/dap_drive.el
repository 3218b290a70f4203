;;; dap_drive.el --- drives `hwf debug-adapter' from a real Emacs with dap-mode, headless  -*- lexical-binding: t -*-
;;
;; The user's config (the README's dap-mode snippet) is loaded first with -l; this script
;; then does what a user does: opens the design (find-file), puts a breakpoint on a line
;; (`dap-breakpoint-add'), starts the README's template (`dap-debug'), and once the run
;; is stopped reads what dap-mode's views read (the stack frames dap-mode keeps, then
;; `scopes' and `variables' through `dap-request'), edits one variable (`setVariable'),
;; and continues (`dap-continue') until the session ends. It writes what it saw as JSON.
;; Env: HWF_DESIGN (the design), HWF_OUT (result file), HWF_TEMPLATE (the template's name),
;;      HWF_BREAK_LINE (1-based line of the breakpoint); optional: HWF_EDIT_NAME and
;;      HWF_EDIT_VALUE (the variable to set, in whichever scope has it, and its new value).

(require 'json)

(defun hwf-dap--wait (ready seconds)
  "Read process output until READY returns non-nil or SECONDS pass; READY's value."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall ready)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall ready)))

(defun hwf-dap--frames (session)
  "The stack frames dap-mode fetched for SESSION's stopped thread, once it has them."
  (let ((thread (dap--debug-session-thread-id session)))
    (and thread (gethash thread (dap--debug-session-thread-stack-frames session)))))

(defun hwf-dap--frame (frame)
  `((name . ,(gethash "name" frame)) (line . ,(gethash "line" frame))
    (path . ,(let ((source (gethash "source" frame))) (and source (gethash "path" source))))))

(defun hwf-dap--variables (session reference)
  (gethash "variables" (dap-request session "variables" :variablesReference reference)))

(defun hwf-dap--shown (session variables)
  "VARIABLES as name, value and, for an object or list, its members one level down."
  (vconcat
   (mapcar (lambda (v)
             (let ((reference (gethash "variablesReference" v)))
               `((name . ,(gethash "name" v)) (value . ,(gethash "value" v))
                 (children . ,(if (and reference (> reference 0))
                                  (vconcat (mapcar (lambda (c) `((name . ,(gethash "name" c))
                                                                 (value . ,(gethash "value" c))))
                                                   (hwf-dap--variables session reference)))
                                [])))))
           variables)))

(defun hwf-dap--scopes (session frame-id)
  "Each scope of FRAME-ID: its name, reference and variables (as `hwf-dap--shown')."
  (mapcar (lambda (scope)
            (let ((reference (gethash "variablesReference" scope)))
              `((name . ,(gethash "name" scope)) (reference . ,reference)
                (variables . ,(hwf-dap--shown session (hwf-dap--variables session reference))))))
          (gethash "scopes" (dap-request session "scopes" :frameId frame-id))))

(defun hwf-dap--edit (session scopes name value)
  "setVariable NAME to VALUE in the first of SCOPES that has it; the answer and the scope after."
  (let ((scope (seq-find (lambda (s) (seq-find (lambda (v) (equal (alist-get 'name v) name))
                                               (alist-get 'variables s)))
                         scopes)))
    (unless scope (error "No scope has a variable %s" name))
    (let* ((reference (alist-get 'reference scope))
           (answer (dap-request session "setVariable" :variablesReference reference
                                :name name :value value)))
      `((scope . ,(alist-get 'name scope)) (value . ,(and answer (gethash "value" answer)))
        (after . ,(hwf-dap--shown session (hwf-dap--variables session reference)))))))

(let ((out (getenv "HWF_OUT"))
      (result nil))
  (condition-case err
      (progn
        (find-file (getenv "HWF_DESIGN"))
        (goto-char (point-min))
        (forward-line (1- (string-to-number (getenv "HWF_BREAK_LINE"))))
        (dap-breakpoint-add)
        (let ((template (cdr (assoc (getenv "HWF_TEMPLATE") dap-debug-template-configurations))))
          (unless template (error "No dap-mode template named %s" (getenv "HWF_TEMPLATE")))
          (dap-debug (copy-tree template)))
        (let* ((session (dap--cur-session))
               (frames (hwf-dap--wait (lambda () (hwf-dap--frames session)) 60)))
          (unless frames
            (error "The session did not stop (state %s)" (dap--debug-session-state session)))
          (push `(stopped . ,(vconcat (mapcar #'hwf-dap--frame frames))) result)
          (push `(buffer . ,(buffer-file-name (window-buffer (selected-window)))) result)
          (let ((scopes (hwf-dap--scopes session (gethash "id" (car frames)))))
            (push `(scopes . ,(vconcat scopes)) result)
            (when (getenv "HWF_EDIT_NAME")
              (push `(edit . ,(hwf-dap--edit session scopes (getenv "HWF_EDIT_NAME") (getenv "HWF_EDIT_VALUE")))
                    result)))
          (dap-continue session (dap--debug-session-thread-id session))
          (push `(ended . ,(if (hwf-dap--wait (lambda () (eq (dap--debug-session-state session) 'terminated)) 60)
                               t :json-false))
                result)
          (push `(output . ,(with-current-buffer (dap--debug-session-output-buffer session) (buffer-string)))
                result)))
    (error (push `(error . ,(error-message-string err)) result)))
  (with-temp-file out
    (insert (json-encode result))))

(kill-emacs 0)
