"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { ModelAccessView } from "../../shared/setup-schemas";
import { describedBy, FormField, fieldInputClass } from "../_components/form-field";
import { buttonClass, secondaryButtonClass } from "../_components/ui";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";

/**
 * Stores an OpenAI API key in the data dir (mode 0600). The field is a password input that is cleared
 * once stored: the key is never shown again, here or anywhere.
 */
/** Storing and removing the key, with the outcome to show (never the key). */
function useApiKeyActions(onStored: () => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.setup.status.queryKey() });
  const store = useMutation(
    trpc.setup.storeApiKey.mutationOptions({
      onSuccess: () => {
        onStored();
        setError(null);
        setNotice("Stored. New runs use it; it is not shown again.");
        void refresh();
      },
      onError: (failure) => setError(describeError(failure).message),
    }),
  );
  const remove = useMutation(
    trpc.setup.removeApiKey.mutationOptions({
      onSuccess: (result) => {
        setNotice(result.removed ? "The stored key was removed." : "No key was stored.");
        void refresh();
      },
      onError: (failure) => setError(describeError(failure).message),
    }),
  );
  return { store, remove, error, notice, setNotice };
}

export function ApiKeyForm({ access }: { access: ModelAccessView }) {
  const [apiKey, setApiKey] = useState("");
  const { store, remove, error, notice, setNotice } = useApiKeyActions(() => setApiKey(""));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    store.mutate({ apiKey });
  };
  return (
    <form onSubmit={submit} className="grid max-w-xl gap-3" aria-label="API key">
      <FormField
        id="api-key"
        label={access.storedKeyAt ? "Replace the stored API key" : "OpenAI API key"}
        hint={
          access.environmentKey
            ? "OPENAI_API_KEY is set where invariant-web was started; it wins over a stored key."
            : "Kept in the data dir with mode 600 and used only by the model gateway; it is never shown again or sent to a viewer."
        }
        error={error}
      >
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={apiKey}
          onChange={(event) => setApiKey(event.target.value)}
          placeholder="sk-…"
          className={fieldInputClass}
          {...describedBy("api-key", { hint: true, error })}
        />
      </FormField>
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" className={buttonClass} disabled={store.isPending || apiKey.trim() === ""}>
          {store.isPending ? "Storing…" : "Store key"}
        </button>
        {access.storedKeyAt ? (
          <button
            type="button"
            className={secondaryButtonClass}
            disabled={remove.isPending}
            onClick={() => {
              setNotice(null);
              remove.mutate();
            }}
          >
            Remove stored key
          </button>
        ) : null}
        {access.storedKeyAt ? (
          <span className="text-xs text-muted">Stored {new Date(access.storedKeyAt).toLocaleString()}</span>
        ) : null}
      </div>
      {notice ? (
        <p role="status" className="text-sm text-ok">
          {notice}
        </p>
      ) : null}
    </form>
  );
}
