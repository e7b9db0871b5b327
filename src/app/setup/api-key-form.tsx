"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { ModelProvider } from "../../shared/harness-kinds";
import type { ProviderAccessView } from "../../shared/setup-schemas";
import { describedBy, FormField, fieldInputClass } from "../_components/form-field";
import { buttonClass, secondaryButtonClass } from "../_components/ui";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";

const PLACEHOLDER: Record<ModelProvider, string> = { openai: "sk-…", anthropic: "sk-ant-…", google: "AIza…" };

/** Storing and removing one provider's key, with the outcome to show (never the key). */
function useApiKeyActions(provider: ModelProvider, onStored: () => void) {
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
        setError(null);
        setNotice(result.removed ? "The stored key was removed." : "No key was stored.");
        void refresh();
      },
      onError: (failure) => setError(describeError(failure).message),
    }),
  );
  return {
    store: (apiKey: string) => store.mutate({ apiKey, provider }),
    remove: () => remove.mutate({ provider }),
    storing: store.isPending,
    removing: remove.isPending,
    error,
    clearError: () => setError(null),
    notice,
    setNotice,
  };
}

/**
 * Stores one provider's API key in the data dir (mode 0600). The field is a password input cleared once
 * the key is stored: the key is never shown again, here or anywhere (its last four characters at most).
 */
export function ApiKeyForm({ access }: { access: ProviderAccessView }) {
  const { provider, label } = access;
  const [apiKey, setApiKey] = useState("");
  const actions = useApiKeyActions(provider, () => setApiKey(""));
  const id = `api-key-${provider}`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    actions.setNotice(null);
    actions.store(apiKey);
  };
  return (
    <form onSubmit={submit} className="grid max-w-xl gap-3" aria-label={`Store the ${label} key`}>
      <FormField
        id={id}
        label={access.storedKeyAt ? `Replace the stored ${label} API key` : `${label} API key`}
        hint={
          access.environmentKey
            ? `${access.variable} is set where invariant-web was started; it wins over a stored key.`
            : "Kept in the data dir with mode 600 and used only by the model gateway; it is never shown again or sent to a viewer."
        }
        error={actions.error}
      >
        <input
          id={id}
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={apiKey}
          onChange={(event) => {
            setApiKey(event.target.value);
            actions.clearError(); // the message was about what was pasted before
          }}
          placeholder={PLACEHOLDER[provider]}
          className={fieldInputClass}
          {...describedBy(id, { hint: true, error: actions.error })}
        />
      </FormField>
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" className={buttonClass} disabled={actions.storing || apiKey.trim() === ""}>
          {actions.storing ? "Storing…" : `Store ${label} key`}
        </button>
        {access.storedKeyAt ? (
          <button
            type="button"
            className={secondaryButtonClass}
            disabled={actions.removing}
            onClick={() => {
              actions.setNotice(null);
              actions.remove();
            }}
          >
            Remove stored {label} key
          </button>
        ) : null}
      </div>
      {actions.notice ? (
        <p role="status" className="text-sm text-ok">
          {actions.notice}
        </p>
      ) : null}
    </form>
  );
}
