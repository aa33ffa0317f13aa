import { useCallback, useEffect, useRef, useState } from "react";
import type { OrderRowFieldsFragment } from "../../gql/graphql.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { newArrivals, remember } from "./queue-arrivals.ts";

const STORAGE_KEY = "ocs.console.followUpNotifications";

export interface QueueNotifications {
  /** The browser has the Notification API. */
  supported: boolean;
  /** The user opted in here and the browser allows it. */
  enabled: boolean;
  /** The user opted in but the browser's site settings block notifications. */
  blocked: boolean;
  enable(): void;
  disable(): void;
}

/**
 * Opt-in browser notifications (SPEC §15) while the Follow-up page is open: a notification when orders join the
 * queue, one per look however many arrived (it names the first). Opting in asks the browser's permission from the
 * button's click (browsers ignore a request that no user action started); the choice is kept per browser.
 */
export function useQueueNotifications(current: readonly OrderRowFieldsFragment[] | null): QueueNotifications {
  const { t } = useI18n();
  const supported = typeof window !== "undefined" && "Notification" in window;
  const [optedIn, setOptedIn] = useState(() => supported && localStorage.getItem(STORAGE_KEY) === "on");
  const [permission, setPermission] = useState<NotificationPermission>(() => (supported ? Notification.permission : "denied"));
  const seen = useRef<Set<string> | null>(null);

  useEffect(() => {
    if (!current) return;
    const arrived = newArrivals(seen.current, current);
    seen.current = remember(seen.current, current);
    if (!optedIn || permission !== "granted" || arrived.length === 0) return;
    const first = `${arrived[0].customerName} (${arrived[0].externalOrderId})`;
    const notification = new Notification(t("followUps.notify.title", { count: arrived.length }), {
      body: arrived.length === 1 ? t("followUps.notify.bodyOne", { first }) : t("followUps.notify.body", { first }),
      tag: "ocs-follow-up",
    });
    notification.onclick = () => window.focus();
  }, [current, optedIn, permission, t]);

  const enable = useCallback(() => {
    if (!supported) return;
    localStorage.setItem(STORAGE_KEY, "on");
    setOptedIn(true);
    void Notification.requestPermission().then(setPermission);
  }, [supported]);
  const disable = useCallback(() => {
    localStorage.removeItem(STORAGE_KEY);
    setOptedIn(false);
  }, []);

  return { supported, enabled: optedIn && permission === "granted", blocked: optedIn && permission === "denied", enable, disable };
}
