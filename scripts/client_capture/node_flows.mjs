// The Node clients' flows scripts/capture_clients.py records: node node_flows.mjs CLIENT FLOW
//
// Each flow uses the client as its documentation shows, against OPENAI_BASE_URL (the recording
// mock). Tool loops are driven by an agent script in the x-mock-script header
// (mock_server/agent_script.py); the catalogue drops that header. Exits 1 when the client threw.

import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { z } from 'zod';

const [client, flow] = process.argv.slice(2);
const baseURL = process.env.OPENAI_BASE_URL;
const apiKey = process.env.OPENAI_API_KEY;
const TOOL_LOOP = JSON.stringify([
  { call: ['get_weather'], arguments: { city: 'Paris' } },
  { say: 'Sunny.' },
]);
const headers = { 'x-mock-script': TOOL_LOOP };
const MODEL = 'gpt-5.4';
// A 1x1 PNG and a one-page PDF, as a user would attach them.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');

const getWeather = tool({
  description: 'The weather in a city.',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, forecast: `Sunny in ${city}` }),
});

async function vercel() {
  const openai = createOpenAI({ baseURL, apiKey, headers });
  const model = openai.responses(MODEL);
  const plain = createOpenAI({ baseURL, apiKey }).responses(MODEL); // no agent script: the mock answers
  const tools = { get_weather: getWeather };
  if (flow === 'generate-tools') {
    await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: 'Weather in Paris?' });
  } else if (flow === 'stream-tools') {
    const result = streamText({
      model,
      tools,
      stopWhen: stepCountIs(3),
      system: 'Use the weather tool.',
      prompt: 'Weather in Paris?',
      onError: ({ error }) => {
        throw error;
      },
    });
    for await (const _ of result.fullStream);
  } else if (flow === 'reasoning') {
    await generateText({
      model,
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'Weather in Paris?',
      providerOptions: {
        openai: {
          reasoningEffort: 'low',
          reasoningSummary: 'auto',
          store: false,
          textVerbosity: 'low',
          serviceTier: 'auto',
          promptCacheKey: 'app-cache-1',
          safetyIdentifier: 'user-1234',
          parallelToolCalls: false,
          user: 'user-1234',
          metadata: { app: 'capture' },
        },
      },
    });
  } else if (flow === 'images-files') {
    await generateText({
      model: plain,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe the image and the file.' },
            { type: 'image', image: PNG, mediaType: 'image/png' },
            { type: 'file', data: PDF, mediaType: 'application/pdf', filename: 'note.pdf' },
            { type: 'image', image: new URL('https://example.com/cat.png') },
          ],
        },
      ],
    });
  } else if (flow === 'item-references') {
    const first = await generateText({
      model,
      tools,
      stopWhen: stepCountIs(3),
      prompt: 'Weather in Paris?',
      providerOptions: { openai: { store: true, reasoningSummary: 'auto' } },
    });
    await generateText({
      model: plain,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        ...first.response.messages,
        { role: 'user', content: 'Thanks. And tomorrow?' },
      ],
      providerOptions: { openai: { store: true } },
    });
  } else {
    throw new Error(`unknown flow ${flow}`);
  }
}

async function openaiNode() {
  const openai = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  const weatherTool = {
    type: 'function',
    name: 'get_weather',
    description: 'The weather in a city.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    strict: true,
  };
  if (flow === 'stream') {
    const stream = openai.responses.stream({ model: MODEL, input: 'Say hello.', instructions: 'Be brief.' });
    for await (const _ of stream);
    const first = await stream.finalResponse();
    const again = await openai.responses.create({
      model: MODEL,
      input: 'And again.',
      previous_response_id: first.id,
      stream: true,
    });
    for await (const _ of again);
  } else if (flow === 'parse') {
    const City = z.object({ name: z.string(), country: z.string() });
    await openai.responses.parse({
      model: MODEL,
      input: 'A city in France.',
      text: { format: zodTextFormat(City, 'city') },
    });
  } else if (flow === 'background') {
    const started = await openai.responses.create({ model: MODEL, input: 'Write a haiku.', background: true });
    for (let i = 0; i < 50; i++) {
      const got = await openai.responses.retrieve(started.id);
      if (got.status !== 'queued' && got.status !== 'in_progress') break;
    }
  } else if (flow === 'websocket') {
    // The SDK's Responses WebSocket (ResponsesWS, the `ws` transport): two turns on one socket.
    const rws = new ResponsesWS(openai);
    let previous;
    for (const input of ['Say hello.', 'And again.']) {
      rws.send({ type: 'response.create', model: MODEL, input, previous_response_id: previous });
      for await (const event of rws.stream()) {
        if (event.type === 'error') throw event.error;
        if (event.type === 'close') throw new Error('the socket closed');
        if (event.type !== 'message') continue;
        const message = event.message;
        if (message.type === 'error') throw new Error(JSON.stringify(message));
        if (message.type === 'response.completed') {
          previous = message.response.id;
          break;
        }
      }
    }
    rws.close();
  } else if (flow === 'function-tools') {
    const opts = { headers };
    const first = await openai.responses.create(
      {
        model: MODEL,
        input: 'Weather in Paris?',
        tools: [weatherTool],
        store: false,
        include: ['reasoning.encrypted_content'],
        reasoning: { effort: 'low', summary: 'auto' },
        prompt_cache_key: 'app-cache-1',
        safety_identifier: 'user-1234',
      },
      opts,
    );
    const input = [{ role: 'user', content: 'Weather in Paris?' }, ...first.output];
    for (const item of first.output) {
      if (item.type === 'function_call') {
        input.push({ type: 'function_call_output', call_id: item.call_id, output: 'sunny' });
      }
    }
    await openai.responses.create(
      { model: MODEL, input, tools: [weatherTool], store: false, include: ['reasoning.encrypted_content'] },
      opts,
    );
  } else {
    throw new Error(`unknown flow ${flow}`);
  }
}

try {
  await ({ 'vercel-ai': vercel, 'openai-node': openaiNode })[client]();
} catch (error) {
  console.error(String(error?.stack ?? error).slice(0, 2000));
  if (error?.responseBody) console.error(error.responseBody);
  process.exit(1);
}
