class RetryJob < ApplicationJob
  def perform(token, attrs, state)
    body = { # #SITE retry-rocket
      "aps" => { "event" => "start", "timestamp" => Time.now.to_i, "content-state" => state },
      "attributes-type" => "TideAttributes",
      "attributes" => attrs
    } # #END
    ApnsClient.deliver(token, body)
  end
end
