// The Vercel AI SDK's OpenAI Responses model against a Responses server, used as its docs show.
//
//   node vercel_ai_sdk.mjs BASE_URL [CHECK ...]     (BASE_URL ends in /v1)
//
// Prints one JSON document: {"results": {check: {"ok": true, ...} | {"ok": false, "error": ...}},
// "requests": [the bodies the SDK sent, in order]}; exits 1 if a check failed.
// tests/clients/test_vercel_ai_sdk.py runs it against the mock.

import { createOpenAI } from '@ai-sdk/openai';
import { generateText, Output, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';

const [baseURL, ...only] = process.argv.slice(2);
if (!baseURL) {
  console.error('usage: node vercel_ai_sdk.mjs BASE_URL [CHECK ...]');
  process.exit(2);
}

const requests = [];
const warnings = [];
// The SDK's warnings (unsupported settings it dropped) go into the report, not onto stdout.
globalThis.AI_SDK_LOG_WARNINGS = ({ warnings: list }) => warnings.push(...list);
const openai = createOpenAI({
  baseURL,
  apiKey: 'unused',
  // Record what the SDK sends, as evidence when a check fails.
  fetch: async (url, init) => {
    requests.push({ url: String(url), body: init?.body ? JSON.parse(init.body) : null });
    return fetch(url, init);
  },
});
const model = openai.responses('mock');

const forecasts = [];
const getWeather = tool({
  description: 'Get the current weather for a city.',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    forecasts.push(city);
    return { city, forecast: `Sunny in ${city}, 21C` };
  },
});

function describeSteps(list) {
  return list.map((s) => ({
    finishReason: s.finishReason,
    toolCalls: s.toolCalls.map((c) => ({ toolName: c.toolName, input: c.input })),
    toolResults: s.toolResults.map((r) => ({ toolName: r.toolName, output: r.output })),
    text: s.text,
  }));
}

async function drain(result, errors) {
  const deltas = [];
  for await (const delta of result.textStream) deltas.push(delta);
  if (errors.length) throw errors[0];
  return deltas;
}

const PROMPT = 'Say hello to the lighthouse keeper.';
const WEATHER = 'What is the weather in Paris? Use the get_weather tool.';

const checks = {
  async generate_text() {
    const r = await generateText({ model, prompt: PROMPT });
    return { text: r.text, finishReason: r.finishReason, usage: r.usage, id: r.response.id };
  },

  async stream_text() {
    const errors = [];
    const r = streamText({ model, prompt: PROMPT, onError: ({ error }) => errors.push(error) });
    const deltas = await drain(r, errors);
    return {
      text: deltas.join(''),
      deltas: deltas.length,
      finishReason: await r.finishReason,
      usage: await r.usage,
      id: (await r.response).id,
    };
  },

  async generate_text_tool_round_trip() {
    const r = await generateText({
      model,
      prompt: WEATHER,
      tools: { get_weather: getWeather },
      stopWhen: stepCountIs(3),
    });
    return { text: r.text, finishReason: r.finishReason, steps: describeSteps(r.steps) };
  },

  async stream_text_tool_round_trip() {
    const errors = [];
    const r = streamText({
      model,
      prompt: WEATHER,
      tools: { get_weather: getWeather },
      stopWhen: stepCountIs(3),
      onError: ({ error }) => errors.push(error),
    });
    const deltas = await drain(r, errors);
    return {
      text: deltas.join(''),
      finishReason: await r.finishReason,
      steps: describeSteps(await r.steps),
    };
  },

  async structured_output() {
    const r = await generateText({
      model,
      prompt: 'Name a city and its population.',
      output: Output.object({
        schema: z.object({ city: z.string(), population: z.number().int() }),
      }),
    });
    return { output: r.output, text: r.text };
  },

  async reasoning_summary() {
    const r = await generateText({
      model,
      prompt: PROMPT,
      // A model id the SDK does not know as a reasoning model (as with any custom baseURL) needs
      // forceReasoning, or the SDK drops the reasoning settings with a warning.
      providerOptions: {
        openai: { forceReasoning: true, reasoningEffort: 'low', reasoningSummary: 'auto' },
      },
    });
    return { reasoningText: r.reasoningText, text: r.text, usage: r.usage };
  },

  async stream_text_reasoning() {
    const errors = [];
    const r = streamText({
      model,
      prompt: PROMPT,
      providerOptions: { openai: { forceReasoning: true, reasoningSummary: 'auto' } },
      onError: ({ error }) => errors.push(error),
    });
    const deltas = await drain(r, errors);
    return { text: deltas.join(''), reasoningText: await r.reasoningText };
  },

  async reasoning_tool_round_trip() {
    // Step 2 sends the reasoning item of step 1 back (as an item_reference while store is on).
    const r = await generateText({
      model,
      prompt: WEATHER,
      tools: { get_weather: getWeather },
      stopWhen: stepCountIs(3),
      providerOptions: { openai: { forceReasoning: true, reasoningSummary: 'auto' } },
    });
    return { text: r.text, steps: describeSteps(r.steps) };
  },

  async reasoning_tool_round_trip_store_false() {
    // Without storage the SDK asks for encrypted reasoning and sends the items back whole.
    const r = await generateText({
      model,
      prompt: WEATHER,
      tools: { get_weather: getWeather },
      stopWhen: stepCountIs(3),
      providerOptions: {
        openai: {
          forceReasoning: true,
          reasoningSummary: 'auto',
          store: false,
          include: ['reasoning.encrypted_content'],
        },
      },
    });
    return { text: r.text, steps: describeSteps(r.steps) };
  },

  async tool_choice_required() {
    const r = await generateText({
      model,
      prompt: 'Hello there.',
      tools: { get_weather: getWeather },
      toolChoice: 'required',
    });
    return { finishReason: r.finishReason, toolCalls: r.toolCalls.map((c) => c.toolName) };
  },

  async max_output_tokens() {
    const r = await generateText({ model, prompt: PROMPT, maxOutputTokens: 16 });
    return { finishReason: r.finishReason, outputTokens: r.usage.outputTokens, text: r.text };
  },

  async failure_non_stream() {
    try {
      await generateText({ model: openai.responses('mock-failure'), prompt: PROMPT, maxRetries: 0 });
    } catch (error) {
      return { error: `${error.name}: ${error.message}`, statusCode: error.statusCode };
    }
    throw new Error('expected the failure scenario to raise');
  },

  async failure_stream() {
    const errors = [];
    const r = streamText({
      model: openai.responses('mock-failure'),
      prompt: PROMPT,
      maxRetries: 0,
      onError: ({ error }) => errors.push(error),
    });
    const deltas = [];
    for await (const delta of r.textStream) deltas.push(delta);
    const error = errors[0];
    return { deltas: deltas.length, error: error ? String(error.message ?? error) : null };
  },

  async abort_mid_stream() {
    const controller = new AbortController();
    const r = streamText({
      model: openai.responses('mock-long-text'),
      prompt: PROMPT,
      abortSignal: controller.signal,
      onError: () => {},
    });
    let deltas = 0;
    try {
      for await (const _delta of r.textStream) {
        if (++deltas === 5) controller.abort();
      }
    } catch (error) {
      return { deltas, aborted: true, error: error.name };
    }
    return { deltas, aborted: controller.signal.aborted };
  },

  async multi_turn_messages() {
    // The chat pattern: earlier turns go back as messages; with `store` on, the SDK sends the
    // earlier assistant message as an item_reference.
    const history = [{ role: 'user', content: 'My name is Ada.' }];
    const first = await generateText({ model, messages: history });
    history.push(...first.response.messages, { role: 'user', content: 'What is my name?' });
    const second = await generateText({ model, messages: history });
    return { first: first.text, second: second.text };
  },

  async previous_response_id() {
    const first = await generateText({ model, prompt: 'My name is Ada.' });
    const second = await generateText({
      model,
      prompt: 'What is my name?',
      providerOptions: { openai: { previousResponseId: first.response.id } },
    });
    return { first: first.text, second: second.text };
  },

  // Hosted tools: each streamed as the SDK's provider-executed tool parts (and
  // sources for web search); the mock calls the one hosted tool a request declares.
  async hosted_web_search() {
    return streamHosted({ web_search: openai.tools.webSearch({}) }, 'Search the web for Paris museums.');
  },
  async hosted_file_search() {
    return streamHosted({ file_search: openai.tools.fileSearch({ vectorStoreIds: ['vs_1'] }) },
      'Search my files for lighthouses.');
  },
  async hosted_code_interpreter() {
    return streamHosted({ code_interpreter: openai.tools.codeInterpreter({}) },
      'Compute the sum of the first squares with Python.');
  },
  async hosted_image_generation() {
    return streamHosted({ image_generation: openai.tools.imageGeneration({ partialImages: 1 }) },
      'Draw a red lighthouse.');
  },
  async hosted_mcp() {
    return streamHosted(
      { mcp: openai.tools.mcp({ serverLabel: 'idx', serverUrl: 'https://mcp.invalid/mcp',
                                requireApproval: 'never' }) },
      'Look up lighthouses with the idx server.');
  },
};

async function streamHosted(tools, prompt, openaiOptions = {}) {
  const errors = [];
  const r = streamText({
    model, prompt, tools, onError: ({ error }) => errors.push(error),
    providerOptions: { openai: openaiOptions },
  });
  const parts = [];
  for await (const part of r.fullStream) {
    if (part.type === 'tool-call' || part.type === 'tool-result') {
      parts.push({ type: part.type, toolName: part.toolName, providerExecuted: part.providerExecuted ?? false });
    } else if (part.type === 'source') {
      parts.push({ type: 'source', sourceType: part.sourceType, url: part.url });
    } else if (part.type === 'error') {
      parts.push({ type: 'error', error: String(part.error?.message ?? part.error) });
    }
  }
  if (errors.length) throw errors[0];
  return { parts, text: await r.text, finishReason: await r.finishReason };
}

function describe(error) {
  return {
    ok: false,
    error: `${error?.name ?? 'Error'}: ${error?.message ?? String(error)}`,
    statusCode: error?.statusCode,
    responseBody: error?.responseBody,
    cause: error?.cause ? String(error.cause) : undefined,
  };
}

const results = {};
for (const [name, check] of Object.entries(checks)) {
  if (only.length && !only.includes(name)) continue;
  const from = requests.length;
  try {
    results[name] = { ok: true, ...(await check()) };
  } catch (error) {
    results[name] = describe(error);
  }
  results[name].requests = [from, requests.length];
}
console.log(JSON.stringify({ results, requests, forecasts, warnings }, null, 2));
process.exit(Object.values(results).every((r) => r.ok) ? 0 : 1);
