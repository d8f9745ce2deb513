import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";

/** Wraps a model so that `onCall` hears when each call started and when its answer (or stream) ended. */
export function timedModel(inner: LanguageModelV4, onCall: (start: number, end: number) => void): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: inner.supportedUrls,
    doGenerate: async (callOptions) => {
      const start = performance.now();
      try {
        return await inner.doGenerate(callOptions);
      } finally {
        onCall(start, performance.now());
      }
    },
    doStream: async (callOptions) => {
      const start = performance.now();
      const result = await inner.doStream(callOptions);
      const stream = result.stream.pipeThrough(
        new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({ flush: () => onCall(start, performance.now()) }),
      );
      return { ...result, stream };
    },
  };
}
