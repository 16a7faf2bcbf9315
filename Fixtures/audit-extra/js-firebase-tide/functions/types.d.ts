export interface TideAps { // #DECOY interface
  event: "start" | "update" | "end";
  timestamp: number;
  "content-state": { level: number };
}
