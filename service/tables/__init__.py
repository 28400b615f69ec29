"""Tables: strangers gather seat by seat before their game exists."""
