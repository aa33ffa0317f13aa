/** Sign-in and sign-out: the two REST routes the console uses (everything else is GraphQL). */
export type SignInResult =
  | { ok: true; user: { id: string; email: string; role: string }; merchant: { id: string; name: string } }
  | { ok: false; status: number; message: string | null; retryAfterSeconds: number | null };

export async function signIn(email: string, password: string, language: string): Promise<SignInResult> {
  let response: Response;
  try {
    response = await fetch("/api/v1/session", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept-Language": language },
      body: JSON.stringify({ email, password }),
    });
  } catch {
    return { ok: false, status: 0, message: null, retryAfterSeconds: null };
  }
  const body = await response.json().catch(() => null);
  if (response.ok) return { ok: true, user: body.user, merchant: body.merchant };
  // The service's error body: { success: false, message (localised by Accept-Language), error: CODE }.
  const retryAfter = Number(response.headers.get("retry-after"));
  return {
    ok: false,
    status: response.status,
    message: typeof body?.message === "string" ? body.message : null,
    retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
  };
}

export async function signOut(): Promise<void> {
  await fetch("/api/v1/session", { method: "DELETE", credentials: "same-origin" }).catch(() => undefined);
}
