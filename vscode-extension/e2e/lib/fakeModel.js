// A scripted OpenAI-compatible chat-completions server on 127.0.0.1 (the e2e's model, as
// tests/hermes/fake_openai.py is the Python tests'): Hermes talks to it as a `custom`
// provider. Every request is kept in `requests` and appended to `logPath` (one JSON line
// each), so a test can show what prompt reached the model. `reply(messages)` gives the
// answer's text (or a promise of it: a slow model). Streaming requests are answered as server-sent events.
'use strict';
const fs = require('node:fs');
const http = require('node:http');

const MODEL = 'fake-model';

function startFakeModel({ reply = () => 'ok', logPath } = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const send = (status, body) => {
      const data = JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) });
      res.end(data);
    };
    if (req.method === 'GET') {
      return req.url.replace(/\/$/, '').endsWith('/models')
        ? send(200, { object: 'list', data: [{ id: MODEL, object: 'model', owned_by: 'fake' }] })
        : send(404, { error: { message: 'not found' } });
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      if (!req.url.replace(/\/$/, '').endsWith('/chat/completions')) return send(404, { error: { message: 'not found' } });
      const request = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      requests.push(request);
      if (logPath) fs.appendFileSync(logPath, `${JSON.stringify({ at: new Date().toISOString(), model: request.model, messages: request.messages })}\n`);
      const content = await reply(request.messages || []);
      const index = requests.length;
      const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
      const base = { id: `chatcmpl-${index}`, created: Math.floor(Date.now() / 1000), model: MODEL };
      if (!request.stream) {
        return send(200, { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage });
      }
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      for (const chunk of [
        { choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: null }] },
        { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage },
      ]) {
        res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...chunk })}\n\n`);
      }
      res.end('data: [DONE]\n\n');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        model: MODEL,
        baseUrl: `http://127.0.0.1:${server.address().port}/v1`,
        requests,
        close: () => new Promise((done) => server.close(done)),
      });
    });
  });
}

module.exports = { startFakeModel };
