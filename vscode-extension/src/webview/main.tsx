/**
 * The VS Code webview's entry: the canvas with a host that talks postMessage to the
 * extension (src/vscode/canvas.ts).
 */
import '@xyflow/react/dist/style.css';
import './canvas.css';
import './page.css';
import { createRoot } from 'react-dom/client';
import { Canvas } from './Canvas';
import type { CanvasMessage, Host, HostMessage } from '../model/protocol';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void; setState?(state: unknown): void };

function vscodeHost(): Host {
  const api = acquireVsCodeApi();
  // where the page's focus is: the host's undo and redo wait for it (model/undoRelay.ts)
  window.addEventListener('focus', () => api.postMessage({ type: 'focus', focused: true } satisfies CanvasMessage));
  window.addEventListener('blur', () => api.postMessage({ type: 'focus', focused: false } satisfies CanvasMessage));
  return {
    post: (message: CanvasMessage) => api.postMessage(message),
    onMessage: (listener: (message: HostMessage) => void) => {
      const handler = (event: MessageEvent) => {
        const message = event.data as HostMessage;
        if (message?.type === 'undoKey') {
          // a text box keeps its own history; anywhere else the key is the design's undo / redo
          const typing = !!(document.activeElement as HTMLElement | null)?.closest?.('input, textarea, select');
          if (typing) {
            document.execCommand(message.which);
          } else {
            api.postMessage({ type: message.which } satisfies CanvasMessage);
          }
          return;
        }
        if (message?.type === 'graph' && message.graph.uri) {
          api.setState?.({ uri: message.graph.uri }); // what the panel serializer reopens after a reload
        }
        listener(message);
      };
      window.addEventListener('message', handler);
      return () => window.removeEventListener('message', handler);
    },
  };
}

createRoot(document.getElementById('root')!).render(<Canvas host={vscodeHost()} />);
