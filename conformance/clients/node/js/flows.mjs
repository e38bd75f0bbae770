// The Node clients' flows of `responses-conformance clients`: node flows.mjs CLIENT FLOW
//
// Run by the harness (conformance/clients) from the folder its pinned packages are installed in,
// against OPENAI_BASE_URL with OPENAI_API_KEY and the model RESPONSES_CLIENTS_MODEL. Each flow
// uses the client as its documentation shows and checks what a user would (the answer came, the
// tool ran, the parsed object is there). Prints `ok: ...` and exits 0 when the flow worked; the
// client's own error (its stack, the response body it quotes) goes to stderr with exit 1; exit 3
// when the client finished but the flow did not end as it should.

import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { z } from 'zod';

const [client, flow] = process.argv.slice(2);
const baseURL = process.env.OPENAI_BASE_URL;
const apiKey = process.env.OPENAI_API_KEY;
const MODEL = process.env.RESPONSES_CLIENTS_MODEL || 'gpt-5.4';
const ASK_WEATHER = "What's the weather in Paris? Use the get_weather tool.";

class FlowFailed extends Error {}

function needText(text, what) {
  if (!text || !text.trim()) throw new FlowFailed(`${what}: no text in the answer`);
  return text;
}

async function vercel() {
  const model = createOpenAI({ baseURL, apiKey }).responses(MODEL);
  const called = [];
  const tools = {
    get_weather: tool({
      description: 'The weather in a city.',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        called.push(city);
        return { city, forecast: `Sunny in ${city}, 21 C` };
      },
    }),
  };
  if (flow === 'generate-text') {
    // the provider options of the captured reasoning flow (scripts/client_capture): the
    // client:vercel-ai profile judges them, so the client runs with them here too
    const providerOptions = {
      openai: {
        reasoningEffort: 'low', reasoningSummary: 'auto', store: false, textVerbosity: 'low',
        serviceTier: 'auto', promptCacheKey: 'app-cache-1', safetyIdentifier: 'user-1234',
        parallelToolCalls: false, user: 'user-1234', metadata: { app: 'capture' },
      },
    };
    const result = await generateText({ model, tools, stopWhen: stepCountIs(4), prompt: ASK_WEATHER, providerOptions });
    if (!called.length) throw new FlowFailed(`the model did not call get_weather: ${result.text.slice(0, 200)}`);
    needText(result.text, 'generateText');
    return `get_weather(${called[0]}), ${result.steps.length} steps`;
  }
  if (flow === 'two-turns') {
    // the captured item-references flow: a second turn on the first's messages, store: true
    // (the provider sends the stored output as item_reference items)
    const first = await generateText({
      model, tools, stopWhen: stepCountIs(4), prompt: ASK_WEATHER,
      providerOptions: { openai: { store: true, reasoningSummary: 'auto' } },
    });
    if (!called.length) throw new FlowFailed(`the model did not call get_weather: ${first.text.slice(0, 200)}`);
    const second = await generateText({
      model,
      messages: [{ role: 'user', content: ASK_WEATHER }, ...first.response.messages,
        { role: 'user', content: 'Thanks. And tomorrow?' }],
      providerOptions: { openai: { store: true } },
    });
    needText(second.text, 'the second generateText');
    return `get_weather(${called[0]}), then a second turn`;
  }
  if (flow === 'stream-text') {
    let failure;
    const result = streamText({
      model,
      tools,
      stopWhen: stepCountIs(4),
      prompt: ASK_WEATHER,
      onError: ({ error }) => {
        failure = error;
      },
    });
    for await (const _ of result.fullStream);
    if (failure) throw failure;
    const text = await result.text;
    if (!called.length) throw new FlowFailed(`the model did not call get_weather: ${text.slice(0, 200)}`);
    needText(text, 'streamText');
    return `get_weather(${called[0]}), streamed`;
  }
  throw new Error(`unknown flow ${flow}`);
}

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

async function openaiNode() {
  const openai = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  if (flow === 'stream') {
    let deltas = 0;
    const stream = openai.responses.stream({ model: MODEL, input: 'Say hello in one line.' });
    for await (const event of stream) if (event.type === 'response.output_text.delta') deltas++;
    const final = await stream.finalResponse();
    needText(final.output_text, 'responses.stream');
    // then chained on the streamed response at once, as the captured stream flow does
    const again = openai.responses.stream({ model: MODEL, input: 'And again.', previous_response_id: final.id });
    for await (const event of again) if (event.type === 'response.output_text.delta') deltas++;
    const next = await again.finalResponse();
    needText(next.output_text, 'responses.stream chained on the streamed response');
    return `${deltas} text deltas, status ${next.status}, chained on ${final.id}`;
  }
  if (flow === 'tools') {
    // the parameters of the captured function-tools flow (scripts/client_capture): the
    // client:openai-node profile judges them, so the client runs with them here too
    const first = await openai.responses.create({
      model: MODEL, input: ASK_WEATHER, tools: [weatherTool], store: false,
      include: ['reasoning.encrypted_content'], reasoning: { effort: 'low', summary: 'auto' },
      prompt_cache_key: 'app-cache-1', safety_identifier: 'user-1234',
    });
    const calls = first.output.filter((item) => item.type === 'function_call');
    if (!calls.length) throw new FlowFailed(`the model did not call get_weather: ${first.output_text.slice(0, 200)}`);
    const input = [{ role: 'user', content: ASK_WEATHER }, ...first.output];
    for (const call of calls) input.push({ type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 21 C.' });
    const second = await openai.responses.create({ model: MODEL, input, tools: [weatherTool], store: false, include: ['reasoning.encrypted_content'] });
    needText(second.output_text, 'the answer after the tool output');
    return `${calls.length} call(s), then an answer`;
  }
  if (flow === 'parse') {
    const City = z.object({ name: z.string(), country: z.string() });
    const parsed = await openai.responses.parse({
      model: MODEL,
      input: 'Name a city in France, as JSON.',
      text: { format: zodTextFormat(City, 'city') },
    });
    if (!parsed.output_parsed || typeof parsed.output_parsed.name !== 'string') {
      throw new FlowFailed(`no parsed city: ${String(parsed.output_text).slice(0, 200)}`);
    }
    return `parsed ${JSON.stringify(parsed.output_parsed)}`;
  }
  if (flow === 'websocket') {
    // The SDK's Responses WebSocket (ResponsesWS on the `ws` package): one response on a socket.
    const rws = new ResponsesWS(openai);
    let text = '';
    rws.send({ type: 'response.create', model: MODEL, input: 'Say hello in one line.', store: false });
    let ended = false;
    for await (const event of rws.stream()) {
      if (event.type === 'error') throw event.error;
      if (event.type === 'close') throw new FlowFailed('the socket closed before response.completed');
      if (event.type !== 'message') continue;
      const message = event.message;
      if (message.type === 'error') throw new FlowFailed(`an error event: ${JSON.stringify(message).slice(0, 600)}`);
      if (message.type === 'response.output_text.delta') text += message.delta;
      if (message.type === 'response.failed' || message.type === 'response.incomplete') {
        throw new FlowFailed(`the response ended ${message.type}`);
      }
      if (message.type === 'response.completed') {
        ended = true;
        break;
      }
    }
    rws.close();
    if (!ended) throw new FlowFailed('the socket ended before response.completed');
    needText(text, 'ResponsesWS');
    return 'one response over WebSocket';
  }
  throw new Error(`unknown flow ${flow}`);
}

try {
  const said = await ({ 'vercel-ai': vercel, 'openai-node': openaiNode })[client]();
  console.log(`ok: ${said}`);
  process.exit(0);
} catch (error) {
  if (error instanceof FlowFailed) {
    console.error(`flow failed: ${error.message}`);
    process.exit(3);
  }
  console.error(String(error?.stack ?? error).slice(0, 2000));
  if (error?.responseBody) console.error(String(error.responseBody).slice(0, 2000));
  process.exit(1);
}
