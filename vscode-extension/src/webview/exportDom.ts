/**
 * The browser half of Export: the theme's colours read from the canvas's CSS variables,
 * and an SVG drawn onto a canvas as a PNG (a `data:` URL; the page's CSP allows data:
 * images, and an SVG without foreign content does not taint the canvas).
 */
import type { ExportColors } from './exportImage';
import { KINDS } from '../model/graphModel';

export function exportColors(element: Element): ExportColors {
  const style = getComputedStyle(element);
  const v = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    background: v('--hwf-bg', '#1e1e1e'),
    foreground: v('--hwf-fg', '#d4d4d4'),
    muted: v('--hwf-muted', '#9d9d9d'),
    node: v('--hwf-node-bg', '#252526'),
    border: v('--hwf-border', '#454545'),
    edge: v('--hwf-edge', '#9d9d9d'),
    kinds: new Map(KINDS.map((k) => [k, v(`--hwf-kind-${k}`, '#888888')])),
  };
}

export function toPng(svg: string, scale = 2): Promise<string> {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => {
      const canvas = document.createElement('canvas');
      canvas.width = Math.ceil(image.width * scale);
      canvas.height = Math.ceil(image.height * scale);
      const context = canvas.getContext('2d');
      if (!context) {
        reject(new Error('no 2d canvas'));
        return;
      }
      context.scale(scale, scale);
      context.drawImage(image, 0, 0);
      resolve(canvas.toDataURL('image/png'));
    };
    image.onerror = () => reject(new Error('the SVG could not be drawn'));
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  });
}
